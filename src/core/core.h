/* Internal utilities shared by every part of libgql. */
#ifndef GQL_CORE_H
#define GQL_CORE_H

#include "gql.h"

#include <assert.h>
#include <stdarg.h>
#include <string.h>

#define GQL_LIKELY(x) __builtin_expect(!!(x), 1)
#define GQL_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* SQLite's ALWAYS / NEVER: a condition that always (never) holds, tested
 * anyway so that release builds recover; debug builds assert it, so that
 * the tests would see the recovery taken. GQL_UNREACHABLE: a case that
 * cannot be reached (asserted in debug builds). */
#ifdef NDEBUG
#define GQL_ALWAYS(x) (x)
#define GQL_NEVER(x) (x)
#define GQL_UNREACHABLE() __builtin_unreachable()
#else
#define GQL_ALWAYS(x) ((x) ? 1 : (assert(0), 0))
#define GQL_NEVER(x) ((x) ? (assert(0), 1) : 0)
#define GQL_UNREACHABLE() assert(!"unreachable")
#endif
#define GQL_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define gql_container_of(ptr, type, member)                                    \
  ((type *)((char *)(ptr)-offsetof(type, member)))

#define GQL_STR(lit) ((gql_str){(lit), sizeof(lit) - 1})

static inline gql_str gql_str_from(const char *s, size_t n) {
  return (gql_str){s, n};
}
static inline gql_str gql_cstr(const char *s) {
  return (gql_str){s, s ? strlen(s) : 0};
}
static inline bool gql_str_eq(gql_str a, gql_str b) {
  return a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0);
}
static inline bool gql_str_eq_cstr(gql_str a, const char *b) {
  size_t n = strlen(b);
  return a.len == n && memcmp(a.ptr, b, n) == 0;
}
/* An ASCII digit (any int: a char, signed or not, or a byte). */
static inline bool gql_is_digit(int c) {
  return (unsigned)c - '0' < 10;
}

/* ---- allocator helpers: NULL allocator means libc */
const gql_allocator *gql_alc_or_default(const gql_allocator *alc);
void *gql_alc_malloc(const gql_allocator *alc, size_t size);
void *gql_alc_realloc(const gql_allocator *alc, void *p, size_t old_size,
                      size_t new_size);
void gql_alc_free(const gql_allocator *alc, void *p, size_t size);

/* ---- arena extras */
/* A new arena whose first block of `first` bytes (up to 1 MiB) comes in the
 * same allocator call as the arena itself: one call for an arena whose
 * use is known ahead. Reset keeps that block only. */
gql_arena *gql_arena_new_sized(const gql_allocator *alc, size_t first);
/* Copies `len` bytes into the arena and NUL-terminates them. */
char *gql_arena_strndup(gql_arena *arena, const char *s, size_t len);
/* printf into the arena; NULL on failure. */
char *gql_arena_sprintf(gql_arena *arena, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
char *gql_arena_vsprintf(gql_arena *arena, const char *fmt, va_list ap);
/* Grows an arena array from `old_cap` to `new_cap` elements of `elem`
 * bytes, copying the old contents (the old block is not reclaimed). */
void *gql_arena_grow(gql_arena *arena, void *old, size_t old_cap,
                     size_t new_cap, size_t elem);

/* ---- growable arrays in an arena, after h2o's H2O_VECTOR
 *
 * GQL_VECTOR(T) declares {items, count, cap} (zero is empty), grown with
 * gql_vector_reserve / gql_vector_push; GQL_ARRAY_RESERVE / GQL_ARRAY_PUSH
 * do the same for an array kept in three fields of a struct of its own
 * (the schema's types, the plan's sets). Growth doubles the capacity (the
 * first: 8, or `first` with the _FIRST forms; at least what is needed) into
 * a new arena block and copies; the old block is not reclaimed. Each is
 * true when there is room, false when out of memory (the array as it
 * was). The arguments are evaluated more than once: pass plain lvalues. */
#define GQL_VECTOR(type)                                                       \
  struct {                                                                     \
    type *items;                                                               \
    uint32_t count, cap;                                                       \
  }
/* The slow path: the array whose pointer is at `items_p` (any element
 * type) grown to hold `need` elements of `elem` bytes. */
bool gql_array_grow(gql_arena *arena, void *items_p, uint32_t *cap,
                    uint32_t need, size_t elem, uint32_t first);
#define GQL_ARRAY_RESERVE_FIRST(arena, items, cap, need, first)                \
  (GQL_LIKELY((need) <= (cap)) ||                                              \
   gql_array_grow((arena), &(items), &(cap), (need), sizeof *(items),          \
                  (first)))
#define GQL_ARRAY_RESERVE(arena, items, cap, need)                             \
  GQL_ARRAY_RESERVE_FIRST(arena, items, cap, need, 8)
#define GQL_ARRAY_PUSH(arena, items, count, cap, value)                        \
  (GQL_ARRAY_RESERVE((arena), (items), (cap), (count) + 1)                     \
       ? ((items)[(count)++] = (value), true)                                  \
       : false)
#define gql_vector_reserve(arena, v, need)                                     \
  GQL_ARRAY_RESERVE((arena), (v)->items, (v)->cap, (need))
#define gql_vector_push(arena, v, value)                                       \
  GQL_ARRAY_PUSH((arena), (v)->items, (v)->count, (v)->cap, (value))

/* An allocator drawing from `arena`: free is a no-op and realloc of the
 * last allocation grows in place, so a gql_buf on it costs no allocator
 * call outside the arena. The arena must outlive what uses it. */
gql_allocator gql_arena_allocator(gql_arena *arena);

/* ---- byte buffer: a growable string on an allocator (not the arena), for
 * output that is handed out or reused across requests. */
typedef struct gql_buf {
  char *data;
  size_t len;
  size_t cap;
  const gql_allocator *alc;
  bool failed; /* set once an allocation failed; later appends are dropped */
} gql_buf;

void gql_buf_init(gql_buf *b, const gql_allocator *alc);
void gql_buf_free(gql_buf *b);
bool gql_buf_reserve(gql_buf *b, size_t extra);
void gql_buf_append(gql_buf *b, const void *p, size_t n);
void gql_buf_printf(gql_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Copies n bytes with at most two overlapping moves when n <= 32 (keys,
 * names, short strings, punctuation), so that no call to memcpy is made for
 * them. */
static inline void gql_copy_short(char *d, const char *p, size_t n) {
  if (n >= 8 && n <= 16) {
    memcpy(d, p, 8);
    memcpy(d + n - 8, p + n - 8, 8);
  } else if (n >= 4 && n < 8) {
    memcpy(d, p, 4);
    memcpy(d + n - 4, p + n - 4, 4);
  } else if (n > 16 && n <= 32) {
    memcpy(d, p, 16);
    memcpy(d + n - 16, p + n - 16, 16);
  } else if (n < 4) {
    for (size_t i = 0; i < n; i++)
      d[i] = p[i];
  } else {
    memcpy(d, p, n);
  }
}
/* Appends with the capacity check inline; gql_buf_append when it grows. */
static inline void gql_buf_put(gql_buf *b, const void *p, size_t n) {
  if (GQL_LIKELY(b->cap - b->len >= n)) {
    gql_copy_short(b->data + b->len, p, n);
    b->len += n;
  } else {
    gql_buf_append(b, p, n);
  }
}
static inline void gql_buf_putc(gql_buf *b, char c) {
  if (GQL_LIKELY(b->len < b->cap) || gql_buf_reserve(b, 1))
    b->data[b->len++] = c;
}
static inline void gql_buf_puts(gql_buf *b, const char *s) {
  gql_buf_append(b, s, strlen(s));
}
static inline void gql_buf_put_str(gql_buf *b, gql_str s) {
  gql_buf_append(b, s.ptr, s.len);
}
/* NUL-terminates (without counting the NUL in len); NULL when failed. */
const char *gql_buf_cstr(gql_buf *b);

/* ---- hashing (build time only): seeded XXH3 */
uint64_t gql_hash(const void *p, size_t n, uint64_t seed);
/* A per-process random seed, drawn once. */
uint64_t gql_hash_seed(void);

/* A string → uint32 map with open addressing, keys borrowed (not copied).
 * Used where names are looked up while building (schema, documents). */
typedef struct gql_strmap {
  struct gql_strmap_slot *slots;
  uint32_t cap; /* power of two or 0 */
  uint32_t count;
  uint64_t seed;
  const gql_allocator *alc;
} gql_strmap;

void gql_strmap_init(gql_strmap *m, const gql_allocator *alc);
void gql_strmap_free(gql_strmap *m);
/* Inserts key → value unless present. Returns 1 when inserted, 0 when the
 * key was present (value left as it was), negative on allocation failure. */
int gql_strmap_put(gql_strmap *m, gql_str key, uint32_t value);
/* Finds key; returns true and sets *value when present. */
bool gql_strmap_get(const gql_strmap *m, gql_str key, uint32_t *value);

/* ---- numbers as JavaScript prints and reads them (dtoa.cc, the one C++
 * file: a shim over libdouble-conversion, the code V8 uses) */
/* Writes d as Number#toString would into out (no NUL); returns the length.
 * d must be finite. */
size_t gql_dtoa(double d, char out[32]);
/* The double nearest to the decimal number in s[0..len), which must be a
 * valid JSON number; +-inf when it overflows. */
double gql_strtod(const char *s, size_t len);

/* ---- UTF-8 */
/* Appends code point `cp` as UTF-8 to `out` (4 bytes room); returns bytes. */
size_t gql_utf8_encode(uint32_t cp, char *out);
/* Decodes one code point at s[0..n); returns its length or 0 if invalid. */
size_t gql_utf8_decode(const char *s, size_t n, uint32_t *cp);
/* s made valid UTF-8: each byte that starts no valid sequence becomes
 * U+FFFD (3 bytes). Written to d when d is not NULL (room for 3 * s.len);
 * returns the length. */
size_t gql_utf8_fix(char *d, gql_str s);

#endif
