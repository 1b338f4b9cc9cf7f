/*
 * convert.c -- between Lua values and host arrays: nested tables in, nested tables out.
 *
 * Lua integers become int64, Lua floats the default float dtype (float64 unless
 * cuarr.set_default_dtype said otherwise), booleans bool; a table mixing them takes the widest
 * kind, as NumPy's array() does.  With a dtype given, a Lua integer it cannot hold is a
 * ValueError (cuarr_lua_to_element).  A uint64 element comes back as the Lua integer of its 64
 * bits (2^64 - 1 is -1), which writes it back unchanged.
 */
#include <string.h>
#include <unistd.h>

#include "array/shape_format.h"
#include "binding.h"

static void push_scalar(lua_State *L, cuarr_scalar s) {
  switch (s.dtype) {
  case CUARR_BOOL: lua_pushboolean(L, s.v.b); break;
  case CUARR_FLOAT16:
  case CUARR_FLOAT32:
  case CUARR_FLOAT64: lua_pushnumber(L, s.v.f); break;
  case CUARR_UINT8:
  case CUARR_UINT16:
  case CUARR_UINT32:
  case CUARR_UINT64: lua_pushinteger(L, (lua_Integer)s.v.u); break; /* wraps past 2^63 */
  default: lua_pushinteger(L, s.v.i); break;
  }
}

void cuarr_lua_push_element(lua_State *L, const void *p, cuarr_dtype dtype) {
  push_scalar(L, cuarr_scalar_load(p, dtype));
}

/*
 * A nested table is read in one walk, each table's length (its __len) once and each element
 * once: the user's metamethods may change the table as it is read, and nothing read later may
 * contradict what was sized earlier.  The shape is recorded from the first table seen at each
 * depth (the first path down, through the first elements); every later table is checked against
 * it before its elements are read, so exactly product(shape) leaves are written.  The array is
 * allocated when that first path ends (at its first leaf or empty table), after the size has
 * been bounded: a huge claimed length is an error before any element is read.
 *
 * With the dtype inferred, the array starts in the first leaf's kind (bool, int64 or float64)
 * and widens when a leaf needs it (the elements so far converted, once): bool to int64 or
 * float64 in a new array, int64 to float64 in place.  The dtype it ends in is the array's,
 * except float64 under another default float, which takes one copy at the end.
 */

/* Conversions of at most this many bytes skip the check against the host's memory (a system
 * call): they are not where a claimed length can exhaust it. */
#define CONVERT_UNCHECKED_BYTES ((int64_t)1 << 30)

typedef struct conversion {
  cuarr_lua_state *S;
  int dtype; /* the requested dtype, or -1: inferred from the leaves */
  /* The default float when the conversion began: a metamethod may change it as it runs. */
  cuarr_dtype default_float;
  int slot;  /* the stack slot that holds the array being written */
  int known; /* depths whose extent is recorded */
  int ndim;  /* -1 until the first leaf or empty table fixes it */
  int64_t shape[CUARR_MAXDIM];
  cuarr_array *out; /* allocated when ndim is fixed */
  char *p;          /* the next element to write */
  size_t itemsize;  /* of out */
} conversion;

static void fail_ragged(lua_State *L, int depth) {
  cuarr_lua_error(L, CUARR_VALUE_ERROR,
                  "the nested table has an inhomogeneous shape (at depth %d): every row must "
                  "have the same length",
                  depth + 1);
}

/* The widest dtype the array may be written in: the requested one, else int64 or float64. */
static cuarr_dtype widest_dtype(const conversion *c) {
  return c->dtype >= 0 ? (cuarr_dtype)c->dtype : CUARR_FLOAT64;
}

/* The length of the table at idx: __len called once, an integer (TypeError otherwise) and not
 * negative.  Errors raised by __len itself propagate as they are. */
static int64_t table_length(lua_State *L, int idx) {
  lua_len(L, idx);
  int is_integer;
  lua_Integer n = lua_tointegerx(L, -1, &is_integer);
  if (!is_integer) {
    if (lua_type(L, -1) == LUA_TNUMBER)
      cuarr_lua_error(L, CUARR_TYPE_ERROR, "the length of a table must be an integer, got %g",
                      (double)lua_tonumber(L, -1));
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "the length of a table must be an integer, got %s",
                    luaL_typename(L, -1));
  }
  lua_pop(L, 1);
  if (n < 0)
    cuarr_lua_error(L, CUARR_VALUE_ERROR, "the length of a table is negative (%lld)", (long long)n);
  return n;
}

static int64_t host_memory_bytes(void) {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0)
    return INT64_MAX;
  return pages > INT64_MAX / page ? INT64_MAX : (int64_t)pages * page;
}

/* Record the extent n of depth `depth` (the first table there) and bound the size so far: no
 * more than an array can hold, nor than the host has memory for. */
static void record_extent(lua_State *L, conversion *c, int depth, int64_t n) {
  if (depth == CUARR_MAXDIM)
    cuarr_lua_error(L, CUARR_VALUE_ERROR,
                    "the nested table has more than %d levels (does it contain itself?)",
                    CUARR_MAXDIM);
  c->shape[depth] = n;
  c->known = depth + 1;
  int64_t size;
  CUARR_LUA_TRY(L, cuarr_shape_check(c->known, c->shape, widest_dtype(c), &size));
  int64_t nbytes = size * (int64_t)cuarr_dtype_size(widest_dtype(c));
  if (nbytes > CONVERT_UNCHECKED_BYTES && nbytes > host_memory_bytes())
    cuarr_lua_error(L, CUARR_OUT_OF_MEMORY,
                    "a table of %lld elements or more needs %lld bytes, more than this host's "
                    "memory",
                    (long long)size, (long long)nbytes);
}

/* Allocate the array in dtype d, in place of the one in the slot. */
static void allocate(lua_State *L, conversion *c, cuarr_dtype d) {
  luaL_checkstack(L, 4, "converting a table");
  c->out = cuarr_lua_new_array(L, c->S, CUARR_HOST, d, c->ndim, c->shape, false);
  lua_replace(L, c->slot);
  c->p = cuarr_array_data(c->out);
  c->itemsize = cuarr_dtype_size(d);
}

/* The first path down ended at depth ndim, at the leaf at idx (0: at an empty table): the shape
 * is complete, allocate the array (inferred: in the leaf's kind). */
static void fix_shape(lua_State *L, conversion *c, int ndim, int idx) {
  c->ndim = ndim;
  cuarr_dtype d = widest_dtype(c);
  if (c->dtype < 0 && idx && lua_type(L, idx) == LUA_TBOOLEAN)
    d = CUARR_BOOL;
  else if (c->dtype < 0 && idx && lua_isinteger(L, idx))
    d = CUARR_INT64;
  allocate(L, c, d);
}

static void fail_element(lua_State *L, int idx) {
  cuarr_lua_error(L, CUARR_TYPE_ERROR, "array elements must be numbers or booleans, got %s",
                  luaL_typename(L, idx));
}

/* An integer as the default float dtype holds it, widened to float64: exact in that dtype, so
 * the final copy into it does not round a second time. */
static double integer_as_float(const conversion *c, lua_Integer i) {
  cuarr_dtype d = c->default_float;
  if (d == CUARR_FLOAT64)
    return (double)i;
  _Alignas(8) unsigned char bytes[8];
  cuarr_scalar s = {.dtype = CUARR_INT64, .v.i = i};
  cuarr_scalar_store(s, d, bytes);
  return cuarr_scalar_load(bytes, d).v.f;
}

static void write_int64(conversion *c, int64_t i) {
  memcpy(c->p, &i, sizeof i);
  c->p += sizeof i;
}

static void write_float64(conversion *c, double f) {
  memcpy(c->p, &f, sizeof f);
  c->p += sizeof f;
}

/* A leaf the inferred array's dtype cannot hold: widen it to d (int64 or float64), converting
 * the elements written so far. */
static void widen(lua_State *L, conversion *c, cuarr_dtype d) {
  if (c->out->dtype == CUARR_INT64) { /* to float64: in place, the same itemsize and strides */
    for (char *q = cuarr_array_data(c->out); q < c->p; q += sizeof(int64_t)) {
      int64_t i;
      memcpy(&i, q, sizeof i);
      double f = integer_as_float(c, i);
      memcpy(q, &f, sizeof f);
    }
    c->out->dtype = CUARR_FLOAT64;
    return;
  }
  cuarr_array *bools = c->out;
  const unsigned char *b = cuarr_array_data(bools);
  size_t count = (size_t)(c->p - (char *)b);
  luaL_checkstack(L, 1, "converting a table");
  lua_pushvalue(L, c->slot); /* keeps the booleans while the new array takes the slot */
  allocate(L, c, d);
  for (size_t k = 0; k < count; k++) {
    if (d == CUARR_INT64)
      write_int64(c, b[k]);
    else
      write_float64(c, b[k]);
  }
  cuarr_array_release(bools); /* the memory goes now, not at a later collection */
  lua_pop(L, 1);
}

/* Write the leaf at idx (a number or boolean, else TypeError) as the next element. */
static void store_leaf(lua_State *L, conversion *c, int idx) {
  if (c->dtype >= 0) {
    cuarr_scalar s;
    if (!cuarr_lua_to_element(L, idx, (cuarr_dtype)c->dtype, &s))
      fail_element(L, idx);
    cuarr_scalar_store(s, (cuarr_dtype)c->dtype, c->p);
    c->p += c->itemsize;
    return;
  }
  /* The inferred array is bool, int64 or float64 (fix_shape, widen). */
  switch (lua_type(L, idx)) {
  case LUA_TBOOLEAN: {
    int b = lua_toboolean(L, idx);
    if (c->out->dtype == CUARR_BOOL)
      *c->p++ = (char)b;
    else if (c->out->dtype == CUARR_INT64)
      write_int64(c, b);
    else
      write_float64(c, b);
    return;
  }
  case LUA_TNUMBER:
    if (lua_isinteger(L, idx)) {
      lua_Integer i = lua_tointeger(L, idx);
      if (c->out->dtype == CUARR_BOOL)
        widen(L, c, CUARR_INT64);
      if (c->out->dtype == CUARR_INT64)
        write_int64(c, i);
      else
        write_float64(c, integer_as_float(c, i));
    } else {
      if (c->out->dtype != CUARR_FLOAT64)
        widen(L, c, CUARR_FLOAT64);
      write_float64(c, (double)lua_tonumber(L, idx));
    }
    return;
  default: fail_element(L, idx);
  }
}

/* A leaf at depth `depth`: the first one fixes the shape, later ones must be at that depth. */
static void visit_leaf(lua_State *L, conversion *c, int idx, int depth) {
  if (c->ndim != depth) {
    if (c->ndim >= 0)
      fail_ragged(L, depth);
    fix_shape(L, c, depth, idx);
  }
  store_leaf(L, c, idx);
}

/* The table at idx, at depth `depth`: its length checked against the shape (or recorded, on the
 * first path down), then each element read once. */
static void visit_table(lua_State *L, conversion *c, int idx, int depth) {
  if (c->ndim >= 0 && depth >= c->ndim)
    fail_ragged(L, depth);
  int64_t n = table_length(L, idx);
  if (depth < c->known) {
    if (n != c->shape[depth])
      fail_ragged(L, depth);
  } else {
    record_extent(L, c, depth, n);
    if (n == 0)
      fix_shape(L, c, depth + 1, 0);
  }
  luaL_checkstack(L, 4, "nested table too deep");
  for (int64_t i = 1; i <= n; i++) {
    if (lua_geti(L, idx, i) == LUA_TTABLE)
      visit_table(L, c, lua_gettop(L), depth + 1);
    else
      visit_leaf(L, c, lua_gettop(L), depth + 1);
    lua_pop(L, 1);
  }
}

cuarr_array *cuarr_lua_host_array_from_lua(lua_State *L, cuarr_lua_state *S, int idx, int dtype) {
  idx = lua_absindex(L, idx);
  conversion c = {.S = S, .dtype = dtype, .default_float = S->default_float, .ndim = -1};
  lua_pushnil(L); /* the array's slot */
  c.slot = lua_gettop(L);
  if (lua_type(L, idx) == LUA_TTABLE)
    visit_table(L, &c, idx, 0);
  else
    visit_leaf(L, &c, idx, 0);
  if (dtype >= 0 || c.out->dtype != CUARR_FLOAT64 || c.default_float == CUARR_FLOAT64)
    return c.out;
  cuarr_array *h = cuarr_lua_new_array(L, S, CUARR_HOST, c.default_float, c.ndim, c.shape, false);
  cuarr_lua_copy_into(L, S, h, c.out, NULL);
  cuarr_array_release(c.out); /* the staging memory goes now, not at a later collection */
  lua_remove(L, c.slot);
  return h;
}

static void push_level(lua_State *L, const cuarr_array *h, int depth, const char *p) {
  if (depth == h->ndim) {
    cuarr_lua_push_element(L, p, h->dtype);
    return;
  }
  luaL_checkstack(L, 3, "array too deep");
  int64_t n = h->shape[depth];
  lua_createtable(L, n > INT32_MAX ? INT32_MAX : (int)n, 0);
  for (int64_t i = 0; i < n; i++) {
    push_level(L, h, depth + 1, p + i * h->strides[depth]);
    lua_rawseti(L, -2, i + 1);
  }
}

/* A Lua table's array part holds at most 2^31 values (Lua's MAXASIZE), and each value takes
 * a TValue (16 bytes) there; each nested table takes its header besides. */
#define TABLE_MAX_EXTENT (INT64_C(1) << 31)
#define TABLE_VALUE_BYTES 16.0
#define TABLE_HEADER_BYTES 56.0

void cuarr_lua_check_table_size(lua_State *L, const cuarr_array *a) {
  double tables = 0, count = 1; /* doubles: a broadcast view's counts overflow int64 */
  for (int d = 0; d < a->ndim; d++) {
    if (a->shape[d] > TABLE_MAX_EXTENT)
      cuarr_lua_error(L, CUARR_OUT_OF_MEMORY,
                      "totable: axis %d has %lld elements, more than a Lua table holds (2^31)",
                      d + 1, (long long)a->shape[d]);
    tables += count;
    count *= (double)a->shape[d];
  }
  double bytes = tables * TABLE_HEADER_BYTES + (a->ndim > 0 ? count : 0) * TABLE_VALUE_BYTES;
  if (bytes > (double)CONVERT_UNCHECKED_BYTES && bytes > (double)host_memory_bytes()) {
    char shape[CUARR_SHAPE_STR_SIZE];
    cuarr_lua_error(L, CUARR_OUT_OF_MEMORY,
                    "totable: a table of shape %s needs about %.3g bytes, more than this host's "
                    "memory",
                    cuarr_shape_format(shape, a->ndim, a->shape), bytes);
  }
}

void cuarr_lua_push_table(lua_State *L, const cuarr_array *h) {
  cuarr_lua_check_table_size(L, h);
  push_level(L, h, 0, cuarr_array_data(h));
}
