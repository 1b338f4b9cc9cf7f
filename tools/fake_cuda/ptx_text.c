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

/* The declaration of a .global or .const variable: the text at its name, its element type
 * (".u32", ...) in *type; NULL when the module declares none of that name. */
static const char *ptx_declaration(const char *ptx, const char *name, const char **type) {
  size_t n = strlen(name);
  for (const char *line = ptx; line && *line;
       line = strchr(line, '\n'), line = line ? line + 1 : 0) {
    const char *t = line + strspn(line, " \t");
    if (strncmp(t, ".global ", 8) && strncmp(t, ".const ", 7))
      continue;
    const char *end = t + strcspn(t, ";\n=");
    for (const char *w = strchr(t, ' '); w && w < end; w = strchr(w + 1, ' ')) {
      const char *word = w + 1;
      if (!strncmp(word, name, n) && strchr("[; =\n", word[n])) {
        *type = NULL;
        for (const char *d = strstr(t, " ."); d && d < word; d = strstr(d + 1, " ."))
          if (ptx_type_size(d + 1))
            *type = d + 1;
        return *type ? word : NULL;
      }
    }
  }
  return NULL;
}

/* A .global or .const variable's size; false when the module has none of that name. */
static bool ptx_global(const char *ptx, const char *name, size_t *bytes) {
  const char *type, *word = ptx_declaration(ptx, name, &type);
  if (!word)
    return false;
  size_t n = strlen(name), elem = ptx_type_size(type);
  *bytes = word[n] == '[' ? elem * strtoul(word + n + 1, NULL, 10) : elem;
  return true;
}

/* Writes a variable's initialiser (`= 7`, `= {2, 3, 5, 7}`) into data (bytes long, zeroed by
 * the caller): integers for .u/.s/.b types; for .f32/.f64 decimals or PTX's hex bit patterns
 * (0f3F000000 is 0.5f, 0d3FF8000000000000 is 1.5). */
static void ptx_global_init(const char *ptx, const char *name, unsigned char *data, size_t bytes) {
  const char *type, *p = ptx_declaration(ptx, name, &type);
  if (!p)
    return;
  p += strcspn(p, "=;\n");
  if (*p != '=')
    return;
  p++;
  p += strspn(p, " \t{");
  size_t elem = ptx_type_size(type);
  for (size_t at = 0; at + elem <= bytes && *p && *p != ';' && *p != '}'; at += elem) {
    char *end;
    if (type[1] == 'f' && p[0] == '0' &&
        (p[1] == 'f' || p[1] == 'F' || p[1] == 'd' || p[1] == 'D')) {
      unsigned long long bits = strtoull(p + 2, &end, 16); /* 0f/0d: the value's bits in hex */
      memcpy(data + at, &bits, elem);
    } else if (type[1] == 'f') {
      double d = strtod(p, &end);
      float f = (float)d;
      memcpy(data + at, elem == 4 ? (void *)&f : (void *)&d, elem);
    } else {
      unsigned long long u =
          *p == '-' ? (unsigned long long)strtoll(p, &end, 0) : strtoull(p, &end, 0);
      memcpy(data + at, &u, elem); /* little-endian: the low bytes */
    }
    if (end == p)
      return;
    p = end + strspn(end, " \t,");
  }
}
