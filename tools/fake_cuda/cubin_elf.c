/*
 * cubin_elf.c -- what the stand-in driver (fake_cuda.c, which includes this file) reads from a
 * real module image: its kernels and their parameter lists, their attributes, and its globals.
 *
 * The format, as read from cubins that nvcc -cubin and NVRTC make for sm_90 (checked against
 * `ptxas -v` and the kernels' sources; spec/c/test_fake_cubin.c holds the figures):
 * - An ELF64 little-endian file, e_machine EM_CUDA (190); e_flags bits 8..15 hold the SM
 *   version (0x5a = 90).  The file ends at the end of the section header table or of the
 *   furthest section, whichever is later.  The stand-in reads its own aligned copy of the file;
 *   only the size check reads the caller's bytes.
 * - A kernel NAME is an STT_FUNC symbol whose section is `.text.NAME`.
 * - `.nv.info` (module-wide) holds records {u8 format, u8 attribute, u16 size-or-value}; format
 *   4 (EIVAL) is followed by `size` bytes of value, the others carry their value in the u16.
 *   EIATTR_REGCOUNT (0x2f) = {u32 symbol index, u32 registers}; EIATTR_FRAME_SIZE (0x11) =
 *   {u32 symbol index, u32 bytes of local memory per thread}.
 * - `.nv.info.NAME` (per kernel), same records: EIATTR_KPARAM_INFO (0x17) = {u32 index, u16
 *   ordinal, u16 offset, u32 flags} with the size in flags bits 18..31 (char 1, short 2, int 4,
 *   double and pointers 8, a 16-byte struct 16); one record per parameter, in reverse order.
 *   EIATTR_MAX_THREADS (0x05) = {u32 x, y, z} from __launch_bounds__.
 * - `.nv.shared.NAME` (NOBITS): static shared memory, including the 1 KiB the system reserves
 *   on sm_80+ when `.nv.shared.reserved.0` is present (not counted by ptxas -v or the driver).
 * - `.nv.constant3`: the module's __constant__ variables (initial contents included);
 *   `.nv.global.init`: initialised __device__ variables; `.nv.global` (NOBITS): zero-filled
 *   ones.  Each variable is an STT_OBJECT symbol with its st_value offset and st_size.
 */
#include <elf.h>

#ifndef EM_CUDA
#define EM_CUDA 190
#endif

enum {
  EIFMT_SVAL = 4, /* the record is followed by its value */
  EIATTR_MAX_THREADS = 0x05,
  EIATTR_FRAME_SIZE = 0x11,
  EIATTR_KPARAM_INFO = 0x17,
  EIATTR_REGCOUNT = 0x2f,
  CUBIN_RESERVED_SHARED = 1024,
};

typedef struct cubin {
  const unsigned char *data;
  size_t size;
  const Elf64_Ehdr *eh;
} cubin;

/* The image's size when it is a 64-bit CUDA ELF, else 0.  The headers are copied out, as the
 * image may lie at any address (inside a fatbin). */
static size_t cubin_elf_size(const void *image) {
  const unsigned char *bytes = image;
  Elf64_Ehdr eh;
  memcpy(&eh, bytes, sizeof eh);
  if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_machine != EM_CUDA || eh.e_shentsize != sizeof(Elf64_Shdr) || !eh.e_shnum)
    return 0;
  size_t end = eh.e_shoff + (size_t)eh.e_shnum * sizeof(Elf64_Shdr);
  if (eh.e_phnum && eh.e_phoff + (size_t)eh.e_phnum * eh.e_phentsize > end)
    end = eh.e_phoff + (size_t)eh.e_phnum * eh.e_phentsize;
  for (int i = 0; i < eh.e_shnum; i++) {
    Elf64_Shdr sh;
    memcpy(&sh, bytes + eh.e_shoff + (size_t)i * sizeof sh, sizeof sh);
    if (sh.sh_type != SHT_NOBITS && sh.sh_offset + sh.sh_size > end)
      end = sh.sh_offset + sh.sh_size;
  }
  return end;
}

static const Elf64_Shdr *cubin_sections(const cubin *c) {
  return (const Elf64_Shdr *)(c->data + c->eh->e_shoff);
}

static const char *cubin_section_name(const cubin *c, const Elf64_Shdr *s) {
  const Elf64_Shdr *names = &cubin_sections(c)[c->eh->e_shstrndx];
  return (const char *)c->data + names->sh_offset + s->sh_name;
}

/* The section called prefix followed by name (name may be NULL), or NULL. */
static const Elf64_Shdr *cubin_section(const cubin *c, const char *prefix, const char *name) {
  size_t n = strlen(prefix);
  for (int i = 0; i < c->eh->e_shnum; i++) {
    const Elf64_Shdr *s = &cubin_sections(c)[i];
    const char *sn = cubin_section_name(c, s);
    if (!strncmp(sn, prefix, n) && !strcmp(sn + n, name ? name : ""))
      return s;
  }
  return NULL;
}

/* The symbol of this name and type, its index in *index; NULL when there is none. */
static const Elf64_Sym *cubin_symbol(const cubin *c, const char *name, int type, uint32_t *index) {
  const Elf64_Shdr *symtab = cubin_section(c, ".symtab", NULL);
  if (!symtab || symtab->sh_link >= c->eh->e_shnum)
    return NULL;
  const Elf64_Shdr *strtab = &cubin_sections(c)[symtab->sh_link];
  const Elf64_Sym *syms = (const Elf64_Sym *)(c->data + symtab->sh_offset);
  size_t n = symtab->sh_size / sizeof(Elf64_Sym);
  for (size_t i = 0; i < n; i++)
    if (ELF64_ST_TYPE(syms[i].st_info) == type &&
        !strcmp((const char *)c->data + strtab->sh_offset + syms[i].st_name, name)) {
      if (index)
        *index = (uint32_t)i;
      return &syms[i];
    }
  return NULL;
}

/* Whether name is a kernel of the image: a function symbol in its own .text.NAME section. */
static bool cubin_has_kernel(const cubin *c, const char *name) {
  const Elf64_Sym *sym = cubin_symbol(c, name, STT_FUNC, NULL);
  const Elf64_Shdr *text = cubin_section(c, ".text.", name);
  return sym && text && &cubin_sections(c)[sym->st_shndx] == text;
}

/* Calls visit for each record of an .nv.info section: its attribute and value (len bytes; the
 * u16 itself for records without a value of their own).  Stops when visit returns true. */
typedef bool (*cubin_visit)(void *ud, int attribute, const unsigned char *value, size_t len);
static void cubin_each_info(const cubin *c, const Elf64_Shdr *info, cubin_visit visit, void *ud) {
  if (!info)
    return;
  const unsigned char *p = c->data + info->sh_offset, *end = p + info->sh_size;
  while (p + 4 <= end) {
    uint16_t v;
    memcpy(&v, p + 2, 2);
    if (p[0] == EIFMT_SVAL) {
      if (p + 4 + v > end)
        return;
      if (visit(ud, p[1], p + 4, v))
        return;
      p += 4 + v;
    } else {
      if (visit(ud, p[1], p + 2, 2))
        return;
      p += 4;
    }
  }
}

typedef struct param_query {
  uint32_t ordinal; /* the one looked for */
  uint32_t count;   /* records seen */
  bool found;
  size_t offset, size;
} param_query;

static bool visit_param(void *ud, int attribute, const unsigned char *value, size_t len) {
  param_query *q = ud;
  if (attribute != EIATTR_KPARAM_INFO || len < 12)
    return false;
  uint16_t ordinal, offset;
  uint32_t flags;
  memcpy(&ordinal, value + 4, 2);
  memcpy(&offset, value + 6, 2);
  memcpy(&flags, value + 8, 4);
  q->count++;
  if (ordinal == q->ordinal) {
    q->found = true;
    q->offset = offset;
    q->size = flags >> 18;
  }
  return false;
}

/* Parameter ordinal of kernel name: false past the last one.  *count gets the number. */
static bool cubin_param(const cubin *c, const char *name, uint32_t ordinal, size_t *offset,
                        size_t *size, uint32_t *count) {
  param_query q = {.ordinal = ordinal};
  cubin_each_info(c, cubin_section(c, ".nv.info.", name), visit_param, &q);
  if (count)
    *count = q.count;
  if (q.found) {
    *offset = q.offset;
    *size = q.size;
  }
  return q.found;
}

typedef struct symbol_value_query {
  int attribute;
  uint32_t symbol;
  uint32_t value;
} symbol_value_query;

static bool visit_symbol_value(void *ud, int attribute, const unsigned char *value, size_t len) {
  symbol_value_query *q = ud;
  uint32_t symbol;
  if (attribute != q->attribute || len < 8)
    return false;
  memcpy(&symbol, value, 4);
  if (symbol != q->symbol)
    return false;
  memcpy(&q->value, value + 4, 4);
  return true;
}

/* A per-kernel figure of the module-wide .nv.info (registers, frame size); 0 when absent. */
static int cubin_kernel_figure(const cubin *c, const char *name, int attribute) {
  symbol_value_query q = {.attribute = attribute};
  if (!cubin_symbol(c, name, STT_FUNC, &q.symbol))
    return 0;
  cubin_each_info(c, cubin_section(c, ".nv.info", NULL), visit_symbol_value, &q);
  return (int)q.value;
}

static bool visit_max_threads(void *ud, int attribute, const unsigned char *value, size_t len) {
  if (attribute != EIATTR_MAX_THREADS || len < 12)
    return false;
  uint32_t xyz[3];
  memcpy(xyz, value, 12);
  *(uint64_t *)ud = (uint64_t)xyz[0] * xyz[1] * xyz[2];
  return true;
}

/* __launch_bounds__' threads per block, 0 when the kernel has none. */
static uint64_t cubin_launch_bound(const cubin *c, const char *name) {
  uint64_t n = 0;
  cubin_each_info(c, cubin_section(c, ".nv.info.", name), visit_max_threads, &n);
  return n;
}

/* Static shared memory of a kernel, the system's reserved area left out. */
static size_t cubin_shared_bytes(const cubin *c, const char *name) {
  const Elf64_Shdr *s = cubin_section(c, ".nv.shared.", name);
  if (!s)
    return 0;
  size_t n = s->sh_size;
  if (cubin_section(c, ".nv.shared.reserved.0", NULL) && n >= CUBIN_RESERVED_SHARED)
    n -= CUBIN_RESERVED_SHARED;
  return n;
}

/* The module's user __constant__ bytes (.nv.constant3). */
static size_t cubin_const_bytes(const cubin *c) {
  const Elf64_Shdr *s = cubin_section(c, ".nv.constant3", NULL);
  return s ? s->sh_size : 0;
}

/* The SM version the image was built for (90 for sm_90). */
static int cubin_sm_version(const cubin *c) { return (int)((c->eh->e_flags >> 8) & 0xff); }

/* A global variable: its size, and its initial bytes (NULL when zero-filled). */
static bool cubin_global(const cubin *c, const char *name, size_t *size,
                         const unsigned char **init) {
  const Elf64_Sym *sym = cubin_symbol(c, name, STT_OBJECT, NULL);
  if (!sym || sym->st_shndx == SHN_UNDEF || sym->st_shndx >= c->eh->e_shnum)
    return false;
  const Elf64_Shdr *s = &cubin_sections(c)[sym->st_shndx];
  const char *sn = cubin_section_name(c, s);
  if (strcmp(sn, ".nv.global") && strcmp(sn, ".nv.global.init") && strncmp(sn, ".nv.constant", 12))
    return false;
  if (!strncmp(sn, ".nv.constant0", 13)) /* a kernel's parameter bank, not a variable */
    return false;
  *size = sym->st_size;
  *init = s->sh_type == SHT_NOBITS ? NULL : c->data + s->sh_offset + sym->st_value;
  return true;
}
