/*
 * keep_modules.c -- linked into the sanitizer builds' Lua host only: a dlclose that keeps every
 * library loaded.
 *
 * lua_close unloads the C modules it loaded (cuarr's core.so) before LeakSanitizer looks at the
 * heap at exit, and a report whose frames lie in an unloaded library names no function.  Keeping
 * them loaded costs nothing in a process that is about to exit, and every leak report then says
 * where the memory was allocated.
 */
int dlclose(void *handle);

int dlclose(void *handle) {
  (void)handle;
  return 0;
}
