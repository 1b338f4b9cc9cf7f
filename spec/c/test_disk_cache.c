/*
 * test_disk_cache.c -- the kernel disk cache and the warning queue, without a GPU.
 *
 * Every case works in a fresh directory under one mkdtemp root, removed at the end.  NVRTC is
 * stood in for by a plain file named by CUARR_LIBNVRTC (the key only looks at the file), except
 * in the last cases, which check the search for the real library where one is installed.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compile/disk_cache.h"
#include "ctest.h"
#include "internal.h"

static char root[] = "/tmp/cuarr_disk_cache_XXXXXX";
static char fake_nvrtc[PATH_MAX];
static const char *const options[] = {"--gpu-architecture=sm_90", "--std=c++17"};
static const char *source = "extern \"C\" __global__ void k(float *x) { x[0] = 1.0f; }\n";

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

/* root/name */
static const char *under(const char *name) {
  static char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/%s", root, name);
  return path;
}

/* Point the cache at root/name and make the next call set up again. */
static void use_dir(const char *name) {
  setenv("CUARR_CACHE_DIR", under(name), 1);
  disk_cache_reset();
}

static int drain_warnings(void) {
  int n = 0;
  while (cuarr_take_warning())
    n++;
  return n;
}

static bool key_of(const char *src, const char *name, int arch, disk_cache_key *key) {
  return disk_cache_key_make(src, name, options, 2, arch, key);
}

/* Deterministic bytes that are not all alike. */
static char *payload(size_t n, unsigned seed) {
  char *p = malloc(n);
  uint32_t x = seed * 2654435761u + 1;
  for (size_t i = 0; p && i < n; i++) {
    x = x * 1664525u + 1013904223u;
    p[i] = (char)(x >> 24);
  }
  return p;
}

static bool lookup_equals(const disk_cache_key *key, const char *want, size_t n) {
  char *got = NULL;
  size_t size = 0;
  if (!disk_cache_lookup(key, &got, &size))
    return false;
  bool same = size == n && memcmp(got, want, n) == 0;
  free(got);
  return same;
}

static bool lookup_misses(const disk_cache_key *key) {
  char *got = NULL;
  size_t size = 0;
  bool hit = disk_cache_lookup(key, &got, &size);
  free(got);
  return !hit && got == NULL;
}

static bool exists(const char *path) { return access(path, F_OK) == 0; }

static long file_size(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* Overwrite one byte at offset (negative: from the end) with its complement. */
static bool flip_byte(const char *path, long offset) {
  int fd = open(path, O_RDWR);
  if (fd < 0)
    return false;
  if (offset < 0)
    offset += file_size(path);
  unsigned char c;
  bool ok = pread(fd, &c, 1, offset) == 1;
  c = (unsigned char)~c;
  ok = ok && pwrite(fd, &c, 1, offset) == 1;
  close(fd);
  return ok;
}

static bool append_byte(const char *path) {
  int fd = open(path, O_WRONLY | O_APPEND);
  bool ok = fd >= 0 && write(fd, "x", 1) == 1;
  if (fd >= 0)
    close(fd);
  return ok;
}

static bool write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f)
    return false;
  bool ok = fputs(text, f) >= 0;
  return fclose(f) == 0 && ok;
}

/* Dot files in dir: the temporary files of stores. */
static int temp_files_left(const char *dir) {
  DIR *d = opendir(dir);
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));)
    n += e->d_name[0] == '.' && strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
  if (d)
    closedir(d);
  return n;
}

/* ---------------------------------------------------------------- warnings */

static void *warn_in_thread(void *arg) {
  (void)arg;
  cuarr_warn("from another thread");
  const char *w = cuarr_take_warning();
  bool ok = w && strcmp(w, "from another thread") == 0 && !cuarr_take_warning();
  return ok ? (void *)1 : NULL;
}

static void test_warnings(void) {
  drain_warnings();
  CHECK(cuarr_take_warning() == NULL, "no warning queued at first");
  cuarr_warn("cache %s is %d", "x", 7);
  const char *w = cuarr_take_warning();
  CHECK(w && strcmp(w, "cache x is 7") == 0, "a warning is formatted printf-style");
  CHECK(cuarr_take_warning() == NULL, "taking a warning removes it");

  for (int i = 0; i < 10; i++)
    cuarr_warn("w%d", i);
  bool order = true;
  for (int i = 2; i < 10; i++) {
    char want[16];
    snprintf(want, sizeof want, "w%d", i);
    w = cuarr_take_warning();
    order = order && w && strcmp(w, want) == 0;
  }
  CHECK(order, "the queue keeps the newest 8, oldest first");
  CHECK(cuarr_take_warning() == NULL, "and then it is empty");

  char longer[2000];
  memset(longer, 'a', sizeof longer - 1);
  longer[sizeof longer - 1] = '\0';
  cuarr_warn("%s", longer);
  w = cuarr_take_warning();
  CHECK(w && strlen(w) == 511, "a long warning is cut to 511 characters");

  cuarr_warn("mine");
  pthread_t t;
  void *other_ok = NULL;
  bool joined =
      pthread_create(&t, NULL, warn_in_thread, NULL) == 0 && pthread_join(t, &other_ok) == 0;
  CHECK(joined && other_ok, "another thread sees only its own warnings");
  w = cuarr_take_warning();
  CHECK(w && strcmp(w, "mine") == 0 && !cuarr_take_warning(), "and this thread keeps its own");
}

/* ---------------------------------------------------------------- the disk layer */

static void test_store_lookup(void) {
  use_dir("nested/a/b/cache");
  disk_cache_key key;
  CHECK(key_of(source, "k", 90, &key), "a key is made when the cache is on");
  CHECK(drain_warnings() == 0, "no warning for a directory that can be created");
  struct stat st;
  CHECK(stat(under("nested/a/b/cache"), &st) == 0 && S_ISDIR(st.st_mode),
        "the directory and its parents are created");
  CHECK(lookup_misses(&key), "an empty cache misses");

  size_t n = 5000;
  char *cubin = payload(n, 1);
  disk_cache_store(&key, cubin, n);
  char path[PATH_MAX];
  CHECK(disk_cache_path(&key, path, sizeof path) && exists(path), "a store writes the file");
  CHECK(file_size(path) == 64 + (long)n, "the file is the header and the cubin");
  const char *base = strrchr(path, '/') + 1;
  CHECK(strlen(base) == 32 + 6 && strcmp(base + 32, ".cubin") == 0,
        "the file is named by the key's 32 hex digits");
  CHECK(lookup_equals(&key, cubin, n), "store then lookup gives the same bytes");

  disk_cache_key again;
  CHECK(key_of(source, "k", 90, &again) && memcmp(&again, &key, sizeof key) == 0,
        "the same material gives the same key");
  disk_cache_key other;
  const char *changed = "extern \"C\" __global__ void k(float *x) { x[0] = 2.0f; }\n";
  CHECK(key_of(changed, "k", 90, &other) && lookup_misses(&other), "another source misses");
  CHECK(key_of(source, "k2", 90, &other) && lookup_misses(&other), "another kernel name misses");
  CHECK(key_of(source, "k", 80, &other) && lookup_misses(&other), "another architecture misses");
  const char *more[] = {"--gpu-architecture=sm_90", "--std=c++17", "--use_fast_math"};
  CHECK(disk_cache_key_make(source, "k", more, 3, 90, &other) && lookup_misses(&other),
        "another option list misses");
  const char *split[] = {"--gpu-architecture=sm_90", "--std=c++", "17"};
  disk_cache_key joined_key, split_key;
  const char *joined[] = {"--gpu-architecture=sm_90", "--std=c++17", ""};
  CHECK(disk_cache_key_make(source, "k", split, 3, 90, &split_key) &&
            disk_cache_key_make(source, "k", joined, 3, 90, &joined_key) &&
            memcmp(&split_key, &joined_key, sizeof split_key) != 0,
        "fields are delimited: moving text between options changes the key");
  const char *include[] = {"-I/some/headers"};
  CHECK(!disk_cache_key_make(source, "k", include, 1, 90, &other),
        "include paths bypass the disk cache (the key cannot see those files)");

  /* The NVRTC library's identity: a new build of the library (other size, other time) is
   * another key. */
  CHECK(append_byte(fake_nvrtc), "the stand-in NVRTC library changes");
  disk_cache_reset();
  CHECK(key_of(source, "k", 90, &other) && memcmp(&other, &key, sizeof key) != 0 &&
            lookup_misses(&other),
        "another NVRTC library misses");
  free(cubin);
}

typedef enum {
  FLIP_PAYLOAD,
  FLIP_LAST,
  CUT_ONE,
  CUT_HEADER,
  EMPTY,
  EXTRA,
  FLIP_MAGIC,
  FLIP_VERSION,
  FLIP_KEY,
  FLIP_SIZE,
  FLIP_SUM,
  FLIP_HEADER_SUM,
  OTHER_KEY,
  N_DAMAGE
} damage;
static const char *const damage_names[] = {"a flipped payload byte",
                                           "a flipped last byte",
                                           "a file cut short by one byte",
                                           "a file cut inside the header",
                                           "an empty file",
                                           "a file with a byte too many",
                                           "a changed magic",
                                           "a changed format version",
                                           "a changed key in the header",
                                           "a changed payload size",
                                           "a changed payload checksum",
                                           "a changed header checksum",
                                           "another key's valid file"};

static bool do_damage(damage d, const char *path, const char *other_path) {
  switch (d) {
  case FLIP_PAYLOAD: return flip_byte(path, 64 + 1000);
  case FLIP_LAST: return flip_byte(path, -1);
  case CUT_ONE: return truncate(path, file_size(path) - 1) == 0;
  case CUT_HEADER: return truncate(path, 30) == 0;
  case EMPTY: return truncate(path, 0) == 0;
  case EXTRA: return append_byte(path);
  case FLIP_MAGIC: return flip_byte(path, 0);
  case FLIP_VERSION: return flip_byte(path, 8);
  case FLIP_KEY: return flip_byte(path, 20);
  case FLIP_SIZE: return flip_byte(path, 32);
  case FLIP_SUM: return flip_byte(path, 41);
  case FLIP_HEADER_SUM: return flip_byte(path, 50);
  case OTHER_KEY: return rename(other_path, path) == 0;
  case N_DAMAGE: break;
  }
  return false;
}

static void test_damage(void) {
  use_dir("damage");
  disk_cache_key key, other;
  size_t n = 3000;
  char *cubin = payload(n, 2);
  char path[PATH_MAX], other_path[PATH_MAX];
  bool keyed = key_of(source, "k", 90, &key) && key_of(source, "other", 90, &other) &&
               disk_cache_path(&key, path, sizeof path) &&
               disk_cache_path(&other, other_path, sizeof other_path);
  CHECK(keyed, "keys for the damage cases");
  for (int d = 0; keyed && d < N_DAMAGE; d++) {
    char name[160];
    disk_cache_store(&key, cubin, n);
    disk_cache_store(&other, cubin, n);
    bool damaged = lookup_equals(&key, cubin, n) && do_damage((damage)d, path, other_path);
    snprintf(name, sizeof name, "%s is a miss", damage_names[d]);
    CHECK(damaged && lookup_misses(&key), name);
    snprintf(name, sizeof name, "%s is removed", damage_names[d]);
    CHECK(!exists(path), name);
    disk_cache_store(&key, cubin, n);
    snprintf(name, sizeof name, "after %s, a new store hits again", damage_names[d]);
    CHECK(lookup_equals(&key, cubin, n), name);
  }
  /* A directory where the file should be: a miss, left alone; a store cannot replace it
   * (rename fails), which skips that entry only: no warning, the cache stays on. */
  unlink(path);
  CHECK(mkdir(path, 0755) == 0 && lookup_misses(&key) && exists(path),
        "a directory in the file's place is a miss");
  drain_warnings();
  disk_cache_store(&key, cubin, n);
  CHECK(drain_warnings() == 0, "a store over a directory skips that entry without a warning");
  CHECK(temp_files_left(under("damage")) == 0, "and leaves no temporary file");
  disk_cache_store(&other, cubin, n);
  CHECK(key_of(source, "k", 90, &key) && lookup_equals(&other, cubin, n),
        "the disk cache stays on for the other entries");
  rmdir(path);
  free(cubin);
}

/* A lookup of key in a child process that is killed after 5 s: true when the child returned
 * a miss in time (a FIFO opened for reading would wait for a writer forever). */
static bool misses_in_time(const disk_cache_key *key) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0)
    return false;
  if (pid == 0) {
    alarm(5);
    _exit(lookup_misses(key) ? 0 : 1);
  }
  int status;
  return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Things that are not regular files where a cache file should be: a lookup misses at once and
 * leaves them (they are not the cache's to remove), a store replaces them. */
static void test_not_files(void) {
  use_dir("not_files");
  disk_cache_key key;
  size_t n = 500;
  char *cubin = payload(n, 9);
  char path[PATH_MAX], target[PATH_MAX];
  bool keyed = key_of(source, "k", 90, &key) && disk_cache_path(&key, path, sizeof path);
  CHECK(keyed, "a key for the non-file cases");
  drain_warnings();

  CHECK(keyed && mkfifo(path, 0644) == 0, "a FIFO where the file should be");
  CHECK(misses_in_time(&key), "a lookup of a FIFO misses without waiting for a writer");
  struct stat st;
  CHECK(lstat(path, &st) == 0 && S_ISFIFO(st.st_mode), "and leaves it");
  disk_cache_store(&key, cubin, n);
  CHECK(lookup_equals(&key, cubin, n) && drain_warnings() == 0,
        "a store replaces the FIFO with a good file");

  /* A symlink to a good cache file: not followed (the link could name any file). */
  snprintf(target, sizeof target, "%s", under("not_files/elsewhere.cubin"));
  CHECK(rename(path, target) == 0 && symlink(target, path) == 0, "a symlink to a good file");
  CHECK(misses_in_time(&key), "a lookup through a symlink misses");
  CHECK(lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && exists(target),
        "and removes neither the link nor its target");
  disk_cache_store(&key, cubin, n);
  CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode) && lookup_equals(&key, cubin, n) &&
            file_size(target) == 64 + (long)n,
        "a store replaces the link, not its target");

  /* A symlink to a FIFO elsewhere. */
  unlink(path);
  snprintf(target, sizeof target, "%s", under("not_files/fifo"));
  CHECK(mkfifo(target, 0644) == 0 && symlink(target, path) == 0, "a symlink to a FIFO");
  CHECK(misses_in_time(&key), "a lookup through it misses without waiting");
  CHECK(drain_warnings() == 0, "no warning for any of them");
  free(cubin);
}

static void test_unwritable(void) {
  /* CI runs as root, which permissions do not stop: a path through a regular file does. */
  CHECK(write_file(under("plain"), "not a directory\n"), "a regular file to block the path");
  use_dir("plain/cache");
  drain_warnings();
  disk_cache_key key;
  CHECK(!key_of(source, "k", 90, &key), "no key when the directory cannot be created");
  const char *w = cuarr_take_warning();
  CHECK(w && strstr(w, under("plain/cache")) && strstr(w, "not writable") &&
            strstr(w, "Not a directory") && strstr(w, "in memory only"),
        "one warning names the directory and the reason");
  if (w && !strstr(w, "not writable"))
    printf("# %s\n", w);
  char *cubin = payload(100, 3);
  memset(&key, 0, sizeof key);
  disk_cache_store(&key, cubin, 100);
  char path[PATH_MAX];
  CHECK(!key_of(source, "k", 90, &key) && lookup_misses(&key) &&
            !disk_cache_path(&key, path, sizeof path),
        "lookups and stores are no-ops");
  CHECK(drain_warnings() == 0, "and the warning is given once");

  /* A directory that goes away after the setup: the first failed store warns and stops. */
  use_dir("vanishing");
  CHECK(key_of(source, "k", 90, &key) && drain_warnings() == 0, "a usable directory");
  CHECK(rmdir(under("vanishing")) == 0 && write_file(under("vanishing"), "now a file\n"),
        "the directory is replaced by a file");
  disk_cache_store(&key, cubin, 100);
  disk_cache_store(&key, cubin, 100);
  w = cuarr_take_warning();
  CHECK(w && strstr(w, under("vanishing")) && strstr(w, "not writable"), "a failed store warns");
  CHECK(cuarr_take_warning() == NULL, "once");
  CHECK(!key_of(source, "k", 90, &key), "and the disk cache is off from then on");
  free(cubin);
}

static void test_in_memory(void) {
  setenv("CUARR_CACHE_IN_MEMORY", "1", 1);
  use_dir("memory_only");
  drain_warnings();
  disk_cache_key key;
  CHECK(!key_of(source, "k", 90, &key), "CUARR_CACHE_IN_MEMORY=1 turns the disk cache off");
  CHECK(!exists(under("memory_only")) && drain_warnings() == 0,
        "without creating the directory or warning");
  setenv("CUARR_CACHE_IN_MEMORY", "0", 1);
  disk_cache_reset();
  CHECK(key_of(source, "k", 90, &key), "CUARR_CACHE_IN_MEMORY=0 leaves it on");
  unsetenv("CUARR_CACHE_IN_MEMORY");
}

/* ---------------------------------------------------------------- concurrency */

#define BIG (1u << 20)
typedef struct writer {
  const disk_cache_key *key;
  const char *cubin;
  int rounds;
} writer;

static char *big_a, *big_b;

static void *write_loop(void *arg) {
  writer *w = arg;
  for (int i = 0; i < w->rounds; i++)
    disk_cache_store(w->key, w->cubin, BIG);
  return NULL;
}

/* Every hit must be one of the two complete payloads; returns the number of bad hits. */
static void *read_loop(void *arg) {
  const disk_cache_key *key = arg;
  long bad = 0;
  for (int i = 0; i < 300; i++) {
    char *got = NULL;
    size_t size = 0;
    if (disk_cache_lookup(key, &got, &size))
      bad += size != BIG || (memcmp(got, big_a, BIG) != 0 && memcmp(got, big_b, BIG) != 0);
    free(got);
  }
  return (void *)bad;
}

static void test_concurrent(void) {
  use_dir("concurrent");
  disk_cache_key key;
  big_a = payload(BIG, 4);
  big_b = payload(BIG, 5);
  bool ok = key_of(source, "k", 90, &key) && big_a && big_b;
  writer wa = {&key, big_a, 100}, wb = {&key, big_b, 100};
  pthread_t ta, tb, tr;
  void *bad = (void *)1;
  ok = ok && pthread_create(&ta, NULL, write_loop, &wa) == 0;
  ok = ok && pthread_create(&tb, NULL, write_loop, &wb) == 0;
  ok = ok && pthread_create(&tr, NULL, read_loop, &key) == 0;
  if (ok) {
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    pthread_join(tr, &bad);
  }
  CHECK(ok && bad == NULL, "a reader during concurrent stores sees only complete files");
  CHECK(lookup_equals(&key, big_a, BIG) || lookup_equals(&key, big_b, BIG),
        "two threads storing one key leave a valid file");
  CHECK(temp_files_left(under("concurrent")) == 0, "and no temporary files");
  CHECK(drain_warnings() == 0, "without warnings");
  free(big_a);
  free(big_b);
}

/* ---------------------------------------------------------------- timing */

static void test_timing(void) {
  use_dir("timing");
  size_t n = 100 * 1024;
  char *cubin = payload(n, 6);
  size_t src_len = 10 * 1024;
  char *src = payload(src_len, 7);
  for (size_t i = 0; src && i < src_len; i++)
    src[i] = (char)('a' + (unsigned char)src[i] % 26);
  if (src)
    src[src_len - 1] = '\0';
  disk_cache_key key;
  bool ok = cubin && src && key_of(src, "k", 90, &key);
  if (ok)
    disk_cache_store(&key, cubin, n);
  ok = ok && lookup_equals(&key, cubin, n);
  CHECK(ok, "a 100 KB entry for timing");

  const int rounds = 2000;
  double t0 = now_us();
  for (int i = 0; ok && i < rounds; i++) {
    char *got = NULL;
    size_t size = 0;
    ok = disk_cache_lookup(&key, &got, &size) && size == n;
    free(got);
  }
  double lookup_us = (now_us() - t0) / rounds;
  t0 = now_us();
  for (int i = 0; ok && i < rounds; i++)
    ok = key_of(src, "k", 90, &key);
  double key_us = (now_us() - t0) / rounds;
  printf("# lookup of a 100 KB entry: %.1f us (page cache warm); key of a 10 KB source: %.1f us\n",
         lookup_us, key_us);
  CHECK(ok && lookup_us + key_us < 2000, "a disk hit costs well under 2 ms");
  free(cubin);
  free(src);
}

/* ---------------------------------------------------------------- the real NVRTC */

static bool nvrtc_is_loaded(void) {
  static const char *const names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so", NULL};
  for (const char *const *name = names; *name; name++) {
    void *h = dlopen(*name, RTLD_LAZY | RTLD_NOLOAD);
    if (h) {
      dlclose(h);
      return true;
    }
  }
  return false;
}

static void test_real_nvrtc(void) {
  unsetenv("CUARR_LIBNVRTC");
  use_dir("real");
  disk_cache_key key;
  double t0 = now_us();
  bool found = key_of(source, "k", 90, &key);
  double setup_us = now_us() - t0;
  if (!found) {
    printf("# no NVRTC library found: skipping the checks of the real library\n");
    return;
  }
  printf("# first key in a process (finding NVRTC, the directory): %.0f us\n", setup_us);
  CHECK(!nvrtc_is_loaded(), "finding the NVRTC library for the key does not load it");
  if (cuarr_load_nvrtc() != CUARR_OK) {
    printf("# NVRTC found but not loadable (%s): skipping\n", cuarr_last_error());
    return;
  }
  CHECK(disk_cache_confirm_nvrtc((const void *)cuarr_nvrtc.nvrtcVersion),
        "the library found without loading is the one the loader opened");
  disk_cache_key again;
  CHECK(key_of(source, "k", 90, &again) && memcmp(&again, &key, sizeof key) == 0,
        "once NVRTC is loaded, the key is the same");

  /* A process whose NVRTC is not the file the key named must not store. */
  disk_cache_reset();
  char *cubin = payload(100, 8);
  CHECK(key_of(source, "k", 90, &key) && !disk_cache_confirm_nvrtc((const void *)&printf),
        "another library than the keyed one is noticed");
  disk_cache_store(&key, cubin, 100);
  CHECK(lookup_misses(&key), "and nothing is stored then");
  free(cubin);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

int main(void) {
  if (!mkdtemp(root)) {
    printf("not ok - mkdtemp\n");
    return 1;
  }
  snprintf(fake_nvrtc, sizeof fake_nvrtc, "%s/libnvrtc-standin.so", root);
  write_file(fake_nvrtc, "stand-in for libnvrtc\n");
  setenv("CUARR_LIBNVRTC", fake_nvrtc, 1);
  unsetenv("CUARR_CACHE_IN_MEMORY");

  test_warnings();
  test_store_lookup();
  test_damage();
  test_not_files();
  test_unwritable();
  test_in_memory();
  test_concurrent();
  test_timing();
  test_real_nvrtc();

  unsetenv("CUARR_CACHE_DIR");
  disk_cache_reset();
  nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  CHECK(!exists(root), "the temporary directory is removed");
  return ctest_done();
}
