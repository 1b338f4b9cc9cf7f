/*
 * disk_cache.c -- compiled kernels kept on disk between processes (see disk_cache.h).
 *
 * The key.  128 bits of FNV-1a over length-prefixed fields: a tag and this file's format
 * version, CUARR_VERSION, the NVRTC library's identity, the architecture, the kernel name, the
 * source and every NVRTC option (cuarr's own included, so changing those misses too).  The full
 * key is also stored in the file and compared on read, and the file name is its hex.
 *
 * The NVRTC identity without loading NVRTC.  A hit must cost a file read and cuModuleLoadData
 * (the target is 2 ms for a fresh process), but opening libnvrtc.so (a 100 MB library) costs
 * 5 ms or more before nvrtcVersion could even be asked.  So the key names the library *file*
 * instead: the one the loader would open, found by the same search dlopen does (CUARR_LIBNVRTC,
 * else each soname of loader.c's list: a library of that name already loaded, LD_LIBRARY_PATH,
 * /etc/ld.so.cache, the default directories; then $CUDA_HOME/lib64), with symlinks resolved, and
 * its size and modification time.  The resolved name usually carries the full version
 * (libnvrtc.so.12.4.127); where it does not (CUDA 13 ships libnvrtc.so.13 alone), an upgrade
 * still changes the size and the time.  The inode is left out so that a cache shared by
 * containers made from one image still hits.  This emulation of dlopen's search could differ
 * from dlopen (an RPATH in the executable, say); to keep that from filing a cubin under another
 * library's identity, the compile path checks the library NVRTC was really loaded from
 * (disk_cache_confirm_nvrtc) before the first store, and a mismatch stops the stores: a
 * wrong guess costs the disk cache, never correctness.  Including files through -I options are
 * invisible to the key, so such options bypass the disk cache.
 *
 * The file: a 64-byte header (magic, format version, header size, key, payload size, payload
 * checksum, header checksum), then the cubin.  Every field is checked on read and the file's
 * size must match exactly; a file that fails is removed and reported as a miss, so the kernel
 * is compiled again and stored afresh.  What is not a regular file under an entry's name (a
 * FIFO, a symlink, a directory) is a miss that costs no wait and turns nothing off: a store
 * renames a good file over it, or, over a directory, skips that entry.  Writes go to a temporary
 * file in the same directory renamed over the final name: readers never see a part, and concurrent
 * writers of one key simply replace each other's complete files.  No fsync: a file cut short by a
 * crash fails the checks and is recompiled, which is cheaper than a sync on every store.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuarr.h"
#include "disk_cache.h"

#define FORMAT_VERSION 1u
#define HEADER_SIZE 64
#define MAGIC "cuarrKC\0"
#define IDENTITY_MAX (PATH_MAX + 64)

/* ---------------------------------------------------------------- hashes */

/* FNV-1a with 128 bits of state for the key: simple, well known, and 2^-128 odds of two kernels
 * sharing a file.  Key material is a few kilobytes, so its byte-at-a-time speed is no concern. */
typedef unsigned __int128 u128;

static u128 fnv_bytes(u128 h, const void *data, size_t n) {
  const u128 prime = ((u128)1 << 88) | 0x13b;
  const unsigned char *p = data;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= prime;
  }
  return h;
}

/* A field with its length first, so that ("ab", "c") and ("a", "bc") differ. */
static u128 fnv_field(u128 h, const void *data, size_t n) {
  unsigned char len[8];
  for (int i = 0; i < 8; i++)
    len[i] = (unsigned char)((uint64_t)n >> (8 * i));
  return fnv_bytes(fnv_bytes(h, len, sizeof len), data, n);
}

static u128 fnv_string(u128 h, const char *s) { return fnv_field(h, s, strlen(s)); }

/* XXH64 for the payload checksum: cubins reach megabytes and are checked on every hit, so this
 * wants to run at memory speed, which FNV's byte loop does not. */
static const uint64_t P1 = 0x9E3779B185EBCA87u, P2 = 0xC2B2AE3D27D4EB4Fu, P3 = 0x165667B19E3779F9u,
                      P4 = 0x85EBCA77C2B2AE63u, P5 = 0x27D4EB2F165667C5u;

static uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
static uint64_t read64(const unsigned char *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}
static uint64_t xxh_round(uint64_t acc, uint64_t in) { return rotl(acc + in * P2, 31) * P1; }
static uint64_t xxh_merge(uint64_t h, uint64_t v) { return (h ^ xxh_round(0, v)) * P1 + P4; }

static uint64_t xxh64(const void *data, size_t n) {
  const unsigned char *p = data, *end = p + n;
  uint64_t h;
  if (n >= 32) {
    uint64_t v1 = P1 + P2, v2 = P2, v3 = 0, v4 = 0 - P1;
    for (; end - p >= 32; p += 32) {
      v1 = xxh_round(v1, read64(p));
      v2 = xxh_round(v2, read64(p + 8));
      v3 = xxh_round(v3, read64(p + 16));
      v4 = xxh_round(v4, read64(p + 24));
    }
    h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
    h = xxh_merge(xxh_merge(xxh_merge(xxh_merge(h, v1), v2), v3), v4);
  } else {
    h = P5;
  }
  h += n;
  for (; end - p >= 8; p += 8)
    h = rotl(h ^ xxh_round(0, read64(p)), 27) * P1 + P4;
  if (end - p >= 4) {
    uint32_t w;
    memcpy(&w, p, 4);
    h = rotl(h ^ (uint64_t)w * P1, 23) * P2 + P3;
    p += 4;
  }
  for (; p < end; p++)
    h = rotl(h ^ *p * P5, 11) * P1;
  h ^= h >> 33;
  h *= P2;
  h ^= h >> 29;
  h *= P3;
  return h ^ (h >> 32);
}

/* ---------------------------------------------------------------- state */

enum { UNSET, ON, OFF };

/* The setup is done once under the lock; while the state is ON, cache_dir and nvrtc_identity
 * do not change (only disk_cache_reset, for tests, touches them), so they are read unlocked. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int state = UNSET;
static int nvrtc_confirmed; /* 0 not checked yet, 1 the loaded library is the keyed one, -1 not */
static char cache_dir[PATH_MAX];
static char nvrtc_identity[IDENTITY_MAX];

static const char *error_text(int err, char *buf, size_t size) {
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
  return strerror_r(err, buf, size); /* the GNU variant: may return a static string */
#else
  return strerror_r(err, buf, size) == 0 ? buf : "unknown error";
#endif
}

static void warn_unwritable(const char *dir, int err) {
  char buf[128];
  cuarr_warn("cuarr: kernel cache directory %s is not writable (%s); caching kernels in memory "
             "only",
             dir, error_text(err, buf, sizeof buf));
}

/* A failed write after the setup: the directory went away, filled up, turned read-only.  Stop
 * using it, saying so once. */
static void give_up(int err) {
  pthread_mutex_lock(&lock);
  bool was_on = state == ON;
  state = OFF;
  pthread_mutex_unlock(&lock);
  if (was_on)
    warn_unwritable(cache_dir, err);
}

/* ---------------------------------------------------------------- finding NVRTC */

/* loader.c's list, in its order: the first of these dlopen finds is the one used. */
static const char *const nvrtc_sonames[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so",
                                            NULL};

static bool is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* dir/name into out when that is a file; an empty dir is the working directory, as in
 * LD_LIBRARY_PATH. */
static bool file_in(const char *dir, size_t dir_len, const char *name, char *out, size_t size) {
  if (dir_len == 0) {
    dir = ".";
    dir_len = 1;
  }
  int n = snprintf(out, size, "%.*s/%s", (int)dir_len, dir, name);
  return n > 0 && (size_t)n < size && is_file(out);
}

/* A library of that name already in the process (dlopen returns it without searching). */
static bool already_loaded(const char *name, char *out, size_t size) {
  void *h = dlopen(name, RTLD_LAZY | RTLD_NOLOAD);
  if (!h) {
    dlerror(); /* leave no stale message for loader.c's dlerror() calls */
    return false;
  }
  struct link_map *map = NULL;
  bool ok = dlinfo(h, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name &&
            strlen(map->l_name) < size;
  if (ok)
    strcpy(out, map->l_name);
  dlclose(h);
  return ok;
}

static bool in_library_path(const char *name, char *out, size_t size) {
  const char *list = getenv("LD_LIBRARY_PATH");
  if (!list || !*list)
    return false;
  for (const char *p = list;; p++) {
    size_t len = strcspn(p, ":;");
    if (file_in(p, len, name, out, size))
      return true;
    p += len;
    if (!*p)
      return false;
  }
}

/* glibc's ld.so.cache, the "new" format (glibc >= 2.32 writes only that; older ones append it
 * to the old one).  Header: magic "glibc-ld.so.cache" and version (20 bytes), nlibs,
 * len_strings, flags and padding, extension_offset, 3 unused words (48 bytes in all); then
 * nlibs entries of {int32 flags; uint32 key, value, osversion; uint64 hwcap} whose key and
 * value are offsets of the name and the path from the header's start.  Entries for other ABIs
 * (i386 beside x86-64) and for hwcaps subdirectories are skipped. */
#if defined(__x86_64__)
#define LD_CACHE_FLAGS 0x0303 /* FLAG_ELF_LIBC6 | FLAG_X8664_LIB64 */
#elif defined(__aarch64__)
#define LD_CACHE_FLAGS 0x0a03 /* FLAG_ELF_LIBC6 | FLAG_AARCH64_LIB64 */
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define LD_CACHE_FLAGS 0x0503 /* FLAG_ELF_LIBC6 | FLAG_POWERPC_LIB64 */
#else
#define LD_CACHE_FLAGS 0 /* unknown: any libc6 entry */
#endif

static bool ld_cache_entry(const unsigned char *base, size_t avail, const char *name, char *out,
                           size_t size) {
  if (avail < 48 || memcmp(base, "glibc-ld.so.cache1.", 19) != 0)
    return false;
  uint32_t nlibs;
  memcpy(&nlibs, base + 20, 4);
  if (nlibs > (avail - 48) / 24)
    return false;
  for (uint32_t i = 0; i < nlibs; i++) {
    const unsigned char *e = base + 48 + (size_t)i * 24;
    int32_t flags;
    uint32_t key, value;
    uint64_t hwcap;
    memcpy(&flags, e, 4);
    memcpy(&key, e + 4, 4);
    memcpy(&value, e + 8, 4);
    memcpy(&hwcap, e + 16, 8);
    bool abi = LD_CACHE_FLAGS ? flags == LD_CACHE_FLAGS || flags == 1 : (flags & 0xff) == 3;
    if (!abi || hwcap != 0 || key >= avail || value >= avail)
      continue;
    const char *k = (const char *)base + key, *v = (const char *)base + value;
    size_t k_len = strnlen(k, avail - key), v_len = strnlen(v, avail - value);
    if (k_len == avail - key || v_len == avail - value || strcmp(k, name) != 0)
      continue;
    if (v_len < size && is_file(v)) {
      memcpy(out, v, v_len + 1);
      return true;
    }
  }
  return false;
}

static bool in_ld_cache(const char *name, char *out, size_t size) {
  int fd = open("/etc/ld.so.cache", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  struct stat st;
  void *map = MAP_FAILED;
  if (fstat(fd, &st) == 0 && st.st_size > 0)
    map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED)
    return false;
  const unsigned char *base = map;
  size_t avail = (size_t)st.st_size;
  bool found = false;
  if (avail >= 16 && memcmp(base, "ld.so-1.7.0", 11) == 0) {
    /* The old format first: {char magic[11]; uint32 nlibs;} and 12-byte entries, then the new
     * header aligned to 8. */
    uint32_t n_old;
    memcpy(&n_old, base + 12, 4);
    size_t offset = ((16 + (size_t)n_old * 12) + 7) & ~(size_t)7;
    if (n_old < avail / 12 && offset < avail)
      found = ld_cache_entry(base + offset, avail - offset, name, out, size);
  } else {
    found = ld_cache_entry(base, avail, name, out, size);
  }
  munmap(map, (size_t)st.st_size);
  return found;
}

static bool in_default_dirs(const char *name, char *out, size_t size) {
  static const char *const dirs[] = {
#if defined(__x86_64__)
    "/lib/x86_64-linux-gnu",
    "/usr/lib/x86_64-linux-gnu",
#elif defined(__aarch64__)
    "/lib/aarch64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
#endif
    "/lib64",
    "/usr/lib64",
    "/lib",
    "/usr/lib",
    NULL
  };
  for (const char *const *d = dirs; *d; d++)
    if (file_in(*d, strlen(*d), name, out, size))
      return true;
  return false;
}

/* dlopen(name) for a name without a slash. */
static bool search_name(const char *name, char *out, size_t size) {
  return already_loaded(name, out, size) || in_library_path(name, out, size) ||
         in_ld_cache(name, out, size) || in_default_dirs(name, out, size);
}

/* The file loader.c's load_nvrtc_once would open. */
static bool locate_nvrtc(char *out, size_t size) {
  const char *forced = getenv("CUARR_LIBNVRTC");
  if (forced && *forced) {
    if (!strchr(forced, '/'))
      return search_name(forced, out, size);
    if (strlen(forced) >= size || !is_file(forced))
      return false;
    strcpy(out, forced);
    return true;
  }
  for (const char *const *name = nvrtc_sonames; *name; name++)
    if (search_name(*name, out, size))
      return true;
  const char *home = getenv("CUDA_HOME");
  if (!home || !*home)
    home = "/usr/local/cuda";
  for (const char *const *name = nvrtc_sonames; *name; name++) {
    char dir[PATH_MAX];
    int n = snprintf(dir, sizeof dir, "%s/lib64", home);
    if (n > 0 && (size_t)n < sizeof dir && file_in(dir, (size_t)n, *name, out, size))
      return true;
  }
  return false;
}

/* "real path|size|mtime" of a library file. */
static bool identity_of(const char *path, char *out, size_t size) {
  char real[PATH_MAX];
  struct stat st;
  if (!realpath(path, real) || stat(real, &st) != 0)
    return false;
  int n = snprintf(out, size, "%s|%lld|%lld.%09ld", real, (long long)st.st_size,
                   (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec);
  return n > 0 && (size_t)n < size;
}

/* ---------------------------------------------------------------- the directory */

static bool choose_dir(char *out, size_t size) {
  const char *dir = getenv("CUARR_CACHE_DIR");
  int n;
  if (dir && *dir) {
    /* Made absolute now: a later chdir must not move the cache. */
    char cwd[PATH_MAX];
    if (dir[0] == '/')
      n = snprintf(out, size, "%s", dir);
    else if (getcwd(cwd, sizeof cwd))
      n = snprintf(out, size, "%s/%s", cwd, dir);
    else
      return false;
  } else {
    const char *home = getenv("HOME");
    char buf[4096];
    struct passwd pw, *found = NULL;
    if ((!home || !*home) && getpwuid_r(getuid(), &pw, buf, sizeof buf, &found) == 0 && found)
      home = found->pw_dir;
    if (!home || !*home)
      return false;
    n = snprintf(out, size, "%s/.cuarr/kernel_cache", home);
  }
  if (n <= 0 || (size_t)n >= size)
    return false;
  while (n > 1 && out[n - 1] == '/')
    out[--n] = '\0';
  return true;
}

/* mkdir -p; 0 or an errno. */
static int make_dirs(const char *dir) {
  struct stat st;
  if (stat(dir, &st) == 0)
    return S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
  char path[PATH_MAX];
  strcpy(path, dir); /* dir comes from cache_dir: shorter than PATH_MAX */
  for (char *p = path + 1;; p++) {
    if (*p != '/' && *p != '\0')
      continue;
    char c = *p;
    *p = '\0';
    if (mkdir(path, 0755) != 0 && errno != EEXIST)
      return errno;
    *p = c;
    if (!c)
      break;
  }
  if (stat(dir, &st) != 0)
    return errno;
  return S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
}

static void setup_locked(void) {
  state = OFF;
  nvrtc_confirmed = 0;
  const char *in_memory = getenv("CUARR_CACHE_IN_MEMORY");
  if (in_memory && *in_memory && strcmp(in_memory, "0") != 0)
    return;
  /* Without an NVRTC to name, a key could not tell compilers apart; nothing would be compiled
   * anyway. */
  char path[PATH_MAX];
  if (!locate_nvrtc(path, sizeof path) || !identity_of(path, nvrtc_identity, IDENTITY_MAX))
    return;
  if (!choose_dir(cache_dir, sizeof cache_dir)) {
    cuarr_warn("cuarr: no kernel cache directory (HOME is not set and CUARR_CACHE_DIR is "
               "empty or too long); caching kernels in memory only");
    return;
  }
  /* access() checks a read-only file system; as root it passes otherwise, and a store that
   * then fails gives up the same way (give_up). */
  int err = make_dirs(cache_dir);
  if (!err && access(cache_dir, W_OK | X_OK) != 0)
    err = errno;
  if (err) {
    warn_unwritable(cache_dir, err);
    return;
  }
  state = ON;
}

/* The setup on first use; true while the disk cache is on. */
static bool ready(void) {
  pthread_mutex_lock(&lock);
  if (state == UNSET)
    setup_locked();
  bool on = state == ON;
  pthread_mutex_unlock(&lock);
  return on;
}

void disk_cache_reset(void) {
  pthread_mutex_lock(&lock);
  state = UNSET;
  nvrtc_confirmed = 0;
  cache_dir[0] = nvrtc_identity[0] = '\0';
  pthread_mutex_unlock(&lock);
}

bool disk_cache_confirm_nvrtc(const void *nvrtc_symbol) {
  if (!ready())
    return false;
  pthread_mutex_lock(&lock);
  int known = nvrtc_confirmed;
  pthread_mutex_unlock(&lock);
  if (known)
    return known > 0;
  Dl_info info;
  char id[IDENTITY_MAX];
  bool same = nvrtc_symbol && dladdr(nvrtc_symbol, &info) && info.dli_fname &&
              identity_of(info.dli_fname, id, sizeof id) && strcmp(id, nvrtc_identity) == 0;
  pthread_mutex_lock(&lock);
  nvrtc_confirmed = same ? 1 : -1;
  pthread_mutex_unlock(&lock);
  return same;
}

/* ---------------------------------------------------------------- keys and files */

static bool names_include_path(const char *option) {
  return strncmp(option, "-I", 2) == 0 || strncmp(option, "--include-path", 14) == 0 ||
         strncmp(option, "--pre-include", 13) == 0 || strncmp(option, "-include", 8) == 0;
}

bool disk_cache_key_make(const char *source, const char *kernel_name, const char *const *options,
                         int n_options, int arch, disk_cache_key *key) {
  if (!source || !kernel_name || n_options < 0 || (n_options > 0 && !options))
    return false;
  for (int i = 0; i < n_options; i++)
    if (!options[i] || names_include_path(options[i]))
      return false;
  if (!ready())
    return false;
  u128 h = ((u128)0x6c62272e07bb0142u << 64) | 0x62b821756295c58du; /* FNV-128 offset basis */
  char number[32];
  snprintf(number, sizeof number, "%u", FORMAT_VERSION);
  h = fnv_string(h, "cuarr kernel cache");
  h = fnv_string(h, number);
  h = fnv_string(h, CUARR_VERSION);
  h = fnv_string(h, nvrtc_identity);
  snprintf(number, sizeof number, "sm_%d", arch);
  h = fnv_string(h, number);
  h = fnv_string(h, kernel_name);
  h = fnv_string(h, source);
  snprintf(number, sizeof number, "%d", n_options);
  h = fnv_string(h, number);
  for (int i = 0; i < n_options; i++)
    h = fnv_string(h, options[i]);
  key->h[0] = (uint64_t)(h >> 64);
  key->h[1] = (uint64_t)h;
  return true;
}

bool disk_cache_path(const disk_cache_key *key, char *path, size_t path_size) {
  if (!ready())
    return false;
  int n = snprintf(path, path_size, "%s/%016llx%016llx.cubin", cache_dir,
                   (unsigned long long)key->h[0], (unsigned long long)key->h[1]);
  return n > 0 && (size_t)n < path_size;
}

static void put32(unsigned char *p, uint32_t v) {
  for (int i = 0; i < 4; i++)
    p[i] = (unsigned char)(v >> (8 * i));
}
static void put64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++)
    p[i] = (unsigned char)(v >> (8 * i));
}
static uint32_t get32(const unsigned char *p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; i--)
    v = v << 8 | p[i];
  return v;
}
static uint64_t get64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--)
    v = v << 8 | p[i];
  return v;
}

/* The header: magic[8], format version u32, header size u32, key 2 x u64, payload size u64,
 * payload XXH64, XXH64 of the 48 bytes before it, 8 reserved zero bytes; little-endian. */
static void header_write(unsigned char *h, const disk_cache_key *key, const char *payload,
                         size_t size) {
  memset(h, 0, HEADER_SIZE);
  memcpy(h, MAGIC, 8);
  put32(h + 8, FORMAT_VERSION);
  put32(h + 12, HEADER_SIZE);
  put64(h + 16, key->h[0]);
  put64(h + 24, key->h[1]);
  put64(h + 32, size);
  put64(h + 40, xxh64(payload, size));
  put64(h + 48, xxh64(h, 48));
}

/* The payload size the header announces, or 0 when the header is not a valid one for key. */
static uint64_t header_check(const unsigned char *h, const disk_cache_key *key) {
  static const unsigned char zero[8];
  bool ok = memcmp(h, MAGIC, 8) == 0 && get32(h + 8) == FORMAT_VERSION &&
            get32(h + 12) == HEADER_SIZE && get64(h + 16) == key->h[0] &&
            get64(h + 24) == key->h[1] && get64(h + 48) == xxh64(h, 48) &&
            memcmp(h + 56, zero, 8) == 0;
  return ok ? get64(h + 32) : 0;
}

static bool read_full(int fd, void *buf, size_t n) {
  char *p = buf;
  while (n > 0) {
    ssize_t r = read(fd, p, n);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return false;
    p += r;
    n -= (size_t)r;
  }
  return true;
}

static bool write_full(int fd, const void *buf, size_t n) {
  const char *p = buf;
  while (n > 0) {
    ssize_t r = write(fd, p, n);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      return false;
    if (r == 0) { /* no progress and no error: treat as a full disk */
      errno = ENOSPC;
      return false;
    }
    p += r;
    n -= (size_t)r;
  }
  return true;
}

/* Remove a bad file, unless a writer has renamed a new one over it since it was opened. */
static void remove_bad(const char *path, const struct stat *opened) {
  struct stat now;
  if (lstat(path, &now) == 0 && now.st_dev == opened->st_dev && now.st_ino == opened->st_ino)
    unlink(path);
}

bool disk_cache_lookup(const disk_cache_key *key, char **cubin, size_t *size) {
  char path[PATH_MAX];
  if (!key || !disk_cache_path(key, path, sizeof path))
    return false;
  /* Anyone who can write the directory can put anything under this name.  O_NONBLOCK: a FIFO
   * opens at once instead of waiting for a writer (reads of a regular file ignore the flag);
   * O_NOFOLLOW: a symlink is not followed to a file elsewhere (open fails).  What is not a
   * regular file is a miss and left where it is: a store renames a good file over it. */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
  if (fd < 0)
    return false; /* the usual miss: no such file */
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return false;
  }
  unsigned char header[HEADER_SIZE];
  uint64_t n = 0;
  bool ok = st.st_size >= HEADER_SIZE && read_full(fd, header, HEADER_SIZE) &&
            (n = header_check(header, key)) != 0 && (uint64_t)st.st_size - HEADER_SIZE == n;
  char *buf = NULL;
  if (ok) {
    buf = malloc((size_t)n);
    if (!buf) { /* not the file's fault: a miss that leaves it */
      close(fd);
      return false;
    }
    ok = read_full(fd, buf, (size_t)n) && xxh64(buf, (size_t)n) == get64(header + 40);
  }
  if (!ok) {
    remove_bad(path, &st);
    free(buf);
    close(fd);
    return false;
  }
  close(fd);
  *cubin = buf;
  *size = (size_t)n;
  return true;
}

void disk_cache_store(const disk_cache_key *key, const char *cubin, size_t size) {
  if (!key || !cubin || size == 0)
    return;
  char path[PATH_MAX], temp[PATH_MAX];
  if (!disk_cache_path(key, path, sizeof path))
    return;
  pthread_mutex_lock(&lock);
  bool refused = nvrtc_confirmed < 0;
  pthread_mutex_unlock(&lock);
  if (refused)
    return;
  /* A dot file beside the final one: same file system (rename is atomic only there), and
   * out of the way of the *.cubin names. */
  int n = snprintf(temp, sizeof temp, "%s/.%016llx%016llx.XXXXXX", cache_dir,
                   (unsigned long long)key->h[0], (unsigned long long)key->h[1]);
  if (n <= 0 || (size_t)n >= sizeof temp)
    return;
  int fd = mkostemp(temp, O_CLOEXEC);
  if (fd < 0) {
    give_up(errno);
    return;
  }
  unsigned char header[HEADER_SIZE];
  header_write(header, key, cubin, size);
  /* mkstemp makes the file 0600; a cache directory shared on purpose should be readable. */
  bool ok =
      fchmod(fd, 0644) == 0 && write_full(fd, header, HEADER_SIZE) && write_full(fd, cubin, size);
  int err = errno;
  if (close(fd) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (ok && rename(temp, path) != 0) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    unlink(temp);
    /* A directory in the entry's place (rename cannot replace it) spoils that entry only:
     * the directory is still writable, so the cache stays on and the entry is not kept. */
    if (err != EISDIR)
      give_up(err);
  }
}
