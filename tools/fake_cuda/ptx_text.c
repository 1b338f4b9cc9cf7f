/*
 * ptx_text.c -- what the stand-in driver (fake_cuda.c, which includes this file) reads from a
 * PTX module image: its entry points, their parameter lists and its variables.
 *
 * As nvcc -ptx and NVRTC write them:
 *   .visible .entry NAME(
 *     .param .u8 NAME_param_0,            scalar: .u8/.s8/.b8 ... .u64/.s64/.b64/.f64
 *     .param .u64 .ptr .align 1 NAME_p1,  pointer qualifiers may follow the type
 *     .param .align 8 .b8 NAME_param_5[16]  a struct: SIZE bytes aligned to N
 *   )
 *   .const .align 4 .b8 lut[1024];   .global .align 4 .u32 counter = 7;
 * Parameters are laid out one after the other, each at a multiple of its alignment (a scalar's
 * is its size), as the driver lays out the kernel's parameter buffer.
 */

/* The size of a PTX fundamental type (.u8 ... .f64), 0 when the text is not one. */
static size_t ptx_type_size(const char *t) {
  if (t[0] != '.' || !strchr("usbf", t[1]))
    return 0;
  char *end;
  long bits = strtol(t + 2, &end, 10);
  return (bits == 8 || bits == 16 || bits == 32 || bits == 64) && !isalnum((unsigned char)*end)
             ? (size_t)bits / 8
             : 0;
}

/* The text after `.entry NAME(`, or NULL when the module has no such entry. */
static const char *ptx_entry(const char *ptx, const char *name) {
  size_t n = strlen(name);
  for (const char *p = strstr(ptx, ".entry "); p; p = strstr(p + 1, ".entry ")) {
    const char *q = p + 7;
    q += strspn(q, " \t");
    if (!strncmp(q, name, n)) {
      q += n;
      q += strspn(q, " \t\r\n");
      if (*q == '(')
        return q + 1;
    }
  }
  return NULL;
}

/* Parameter ordinal of entry name: false past the last one; *count gets the number. */
static bool ptx_param(const char *ptx, const char *name, uint32_t ordinal, size_t *offset,
                      size_t *size, uint32_t *count) {
  const char *p = ptx_entry(ptx, name);
  if (!p)
    return false;
  const char *close = strchr(p, ')');
  size_t at = 0;
  uint32_t i = 0;
  bool found = false;
  for (const char *q = strstr(p, ".param"); q && close && q < close; q = strstr(q + 6, ".param")) {
    size_t align = 0, bytes = 0;
    const char *t = q + 6;
    t += strspn(t, " \t");
    if (!strncmp(t, ".align", 6)) {
      align = strtoul(t + 6, (char **)&t, 10);
      t += strspn(t, " \t");
    }
    size_t elem = ptx_type_size(t);
    const char *line_end = t + strcspn(t, ",)\n");
    const char *bracket = memchr(t, '[', (size_t)(line_end - t));
    bytes = bracket ? elem * strtoul(bracket + 1, NULL, 10) : elem;
    if (!align)
      align = elem ? elem : 1;
    at = (at + align - 1) / align * align;
    if (i == ordinal) {
      *offset = at;
      *size = bytes;
      found = true;
    }
    at += bytes;
    i++;
  }
  if (count)
    *count = i;
  return found;
}

/* A .global or .const variable's size; false when the module has none of that name. */
static bool ptx_global(const char *ptx, const char *name, size_t *bytes) {
  size_t n = strlen(name);
  for (const char *line = ptx; line && *line;
       line = strchr(line, '\n'), line = line ? line + 1 : 0) {
    const char *t = line + strspn(line, " \t");
    if (strncmp(t, ".global ", 8) && strncmp(t, ".const ", 7))
      continue;
    const char *end = t + strcspn(t, ";\n=");
    for (const char *w = strchr(t, ' '); w && w < end; w = strchr(w + 1, ' ')) {
      const char *word = w + 1;
      if (!strncmp(word, name, n) && (word[n] == '[' || word[n] == ';' || word[n] == ' ' ||
                                      word[n] == '=' || word[n] == '\n')) {
        size_t elem = 0;
        for (const char *d = strstr(t, " ."); d && d < word; d = strstr(d + 1, " ."))
          if (ptx_type_size(d + 1))
            elem = ptx_type_size(d + 1);
        *bytes = word[n] == '[' ? elem * strtoul(word + n + 1, NULL, 10) : elem;
        return elem != 0;
      }
    }
  }
  return false;
}
