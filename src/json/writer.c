#include "json.h"

#include <math.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* ---------------------------------------------------------------- strings */

#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

/* True when one of the 8 bytes needs a look: '"', '\\', a control
 * character or a non-ASCII byte (to check its UTF-8). */
static inline bool has_special(uint64_t w) {
  uint64_t quote = w ^ (ONES * '"');
  uint64_t slash = w ^ (ONES * '\\');
  uint64_t t = ((quote - ONES) & ~quote) | ((slash - ONES) & ~slash) |
               ((w - ONES * 0x20) & ~w) | w;
  return (t & HIGHS) != 0;
}

static const char hex_digits[] = "0123456789abcdef";

static void write_escape(gql_buf *b, unsigned char c) {
  char e[6] = {'\\', 0, 0, 0, 0, 0};
  switch (c) {
  case '"':
    e[1] = '"';
    break;
  case '\\':
    e[1] = '\\';
    break;
  case '\b':
    e[1] = 'b';
    break;
  case '\f':
    e[1] = 'f';
    break;
  case '\n':
    e[1] = 'n';
    break;
  case '\r':
    e[1] = 'r';
    break;
  case '\t':
    e[1] = 't';
    break;
  default:
    e[1] = 'u', e[2] = '0', e[3] = '0';
    e[4] = hex_digits[c >> 4], e[5] = hex_digits[c & 15];
    gql_buf_put(b, e, 6);
    return;
  }
  gql_buf_put(b, e, 2);
}

static inline bool plain_byte(unsigned char c) {
  return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

/* From `p`, the first byte that needs a look, on. */
static __attribute__((noinline)) void write_string_slow(gql_buf *b, gql_str s,
                                                        const char *p) {
  const char *end = s.ptr + s.len, *run = s.ptr;
  gql_buf_putc(b, '"');
  while (p < end) {
    while (end - p >= 8) {
      uint64_t w;
      memcpy(&w, p, 8);
      if (has_special(w))
        break;
      p += 8;
    }
    if (p >= end)
      break;
    unsigned char c = (unsigned char)*p;
    if (c >= 0x80) {
      uint32_t cp;
      size_t l = gql_utf8_decode(p, (size_t)(end - p), &cp);
      if (l) {
        p += l;
        continue;
      }
      gql_buf_put(b, run, (size_t)(p - run));
      gql_buf_put(b, "\xEF\xBF\xBD", 3); /* U+FFFD for a bad byte */
      run = ++p;
      continue;
    }
    if (plain_byte(c)) {
      p++;
      continue;
    }
    gql_buf_put(b, run, (size_t)(p - run));
    write_escape(b, c);
    run = ++p;
  }
  gql_buf_put(b, run, (size_t)(end - run));
  gql_buf_putc(b, '"');
}

#if defined(__SSE2__)
/* True when none of the 16 bytes needs a look: a signed compare with 0x20
 * finds the control characters and the non-ASCII bytes at once. */
static inline bool plain16(__m128i v) {
  __m128i q = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
  __m128i bs = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
  __m128i lo = _mm_cmplt_epi8(v, _mm_set1_epi8(0x20));
  return _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(q, bs), lo)) == 0;
}

static inline uint64_t load8(const char *p) {
  uint64_t w;
  memcpy(&w, p, 8);
  return w;
}
#endif

/* True when no byte of s needs a look, never reading outside it: whole
 * blocks, the last one overlapping the one before, and short strings as
 * two overlapping halves (every lane a byte of the string). */
static inline bool all_plain(const char *p, size_t n) {
#if defined(__SSE2__)
  if (n >= 16) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
      if (!plain16(_mm_loadu_si128((const __m128i *)(const void *)(p + i))))
        return false;
    return i == n || plain16(_mm_loadu_si128(
                         (const __m128i *)(const void *)(p + n - 16)));
  }
  if (n >= 8)
    return plain16(
        _mm_set_epi64x((int64_t)load8(p + n - 8), (int64_t)load8(p)));
  if (n >= 4) {
    uint32_t a, b;
    memcpy(&a, p, 4);
    memcpy(&b, p + n - 4, 4);
    return plain16(_mm_set1_epi64x((int64_t)((uint64_t)a | (uint64_t)b << 32)));
  }
#else
  if (n >= 8) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      uint64_t w;
      memcpy(&w, p + i, 8);
      if (has_special(w))
        return false;
    }
    if (i < n) {
      uint64_t w;
      memcpy(&w, p + n - 8, 8);
      return !has_special(w);
    }
    return true;
  }
  if (n >= 4) {
    uint32_t lo, hi;
    memcpy(&lo, p, 4);
    memcpy(&hi, p + n - 4, 4);
    return !has_special((uint64_t)lo | (uint64_t)hi << 32);
  }
#endif
  for (size_t i = 0; i < n; i++)
    if (!plain_byte((unsigned char)p[i]))
      return false;
  return true;
}

/* Most strings in a response need no escape: scan, then copy once. */
static __attribute__((noinline)) void write_string_any(gql_buf *b, gql_str s) {
  if (GQL_UNLIKELY(!all_plain(s.ptr, s.len))) {
    write_string_slow(b, s, s.ptr);
    return;
  }
  gql_json_write_plain(b, s);
}

static bool name_byte(unsigned char c) {
  return (unsigned)((c | 0x20) - 'a') < 26 || gql_is_digit(c) || c == '_';
}

gql_str gql_json_key(gql_arena *a, gql_str key) {
  char *t = gql_arena_alloc(a, key.len + 3);
  if (!t)
    return (gql_str){NULL, 0};
  t[0] = '"';
  for (size_t i = 0; i < key.len; i++) {
    unsigned char c = (unsigned char)key.ptr[i];
    if (!name_byte(c))
      goto escaped; /* not a name after all */
    t[i + 1] = (char)c;
  }
  t[key.len + 1] = '"';
  t[key.len + 2] = ':';
  return (gql_str){t, key.len + 3};
escaped:;
  gql_allocator alc = gql_arena_allocator(a);
  gql_buf b;
  gql_buf_init(&b, &alc);
  gql_json_write_string(&b, key);
  gql_buf_putc(&b, ':');
  if (b.failed)
    return (gql_str){NULL, 0};
  return (gql_str){b.data, b.len};
}

/* Names, ids, enum values: up to 16 plain bytes with room for them are
 * written with no call and no saved register; the rest goes out of line. */
void gql_json_write_string(gql_buf *b, gql_str s) {
  if (GQL_LIKELY(s.len <= 16 && b->cap - b->len >= 18) &&
      GQL_LIKELY(all_plain(s.ptr, s.len))) {
    char *o = b->data + b->len;
    o[0] = '"';
    gql_copy_short(o + 1, s.ptr, s.len);
    o[s.len + 1] = '"';
    b->len += s.len + 2;
    return;
  }
  write_string_any(b, s);
}

/* ---------------------------------------------------------------- numbers */

const char gql_json_digit_pairs[201] = "00010203040506070809"
                                       "10111213141516171819"
                                       "20212223242526272829"
                                       "30313233343536373839"
                                       "40414243444546474849"
                                       "50515253545556575859"
                                       "60616263646566676869"
                                       "70717273747576777879"
                                       "80818283848586878889"
                                       "90919293949596979899";

/* The general case, any sign and magnitude: the length first, then the
 * digits backward. */
static __attribute__((noinline)) void write_int_any(gql_buf *b, int64_t v) {
  if (GQL_UNLIKELY(b->cap - b->len < 20) && !gql_buf_reserve(b, 20))
    return;
  char *d = b->data + b->len;
  uint64_t u = (uint64_t)v;
  size_t neg = 0;
  if (v < 0) {
    *d = '-';
    u = 0 - u;
    neg = 1;
  }
  d += neg;
  size_t n = gql_json_count_digits(u);
  gql_json_utoa_back(d + n, u);
  b->len += neg + n;
}

/* 0 to 9999 (ids, counts, small integral floats) with one capacity check
 * and 32-bit arithmetic, in the caller's frame: false for anything else.
 * (u * 5243) >> 19 is u / 100 for every u below 43699. */
static inline bool write_small_uint(gql_buf *b, uint64_t v) {
  if (!(v < 10000 && b->cap - b->len >= 4))
    return false;
  char *d = b->data + b->len;
  uint32_t u = (uint32_t)v;
  if (u < 10) {
    d[0] = (char)('0' + u);
    b->len += 1;
  } else if (u < 100) {
    memcpy(d, gql_json_digit_pairs + 2 * u, 2);
    b->len += 2;
  } else {
    uint32_t q = (u * 5243) >> 19, r = u - q * 100;
    if (u < 1000) {
      d[0] = (char)('0' + q);
      memcpy(d + 1, gql_json_digit_pairs + 2 * r, 2);
      b->len += 3;
    } else {
      memcpy(d, gql_json_digit_pairs + 2 * q, 2);
      memcpy(d + 2, gql_json_digit_pairs + 2 * r, 2);
      b->len += 4;
    }
  }
  return true;
}

void gql_json_write_int(gql_buf *b, int64_t v) {
  if (GQL_LIKELY(write_small_uint(b, (uint64_t)v)))
    return;
  write_int_any(b, v);
}

static const double pow10_exact[] = {1e0, 1e1, 1e2, 1e3, 1e4,
                                     1e5, 1e6, 1e7, 1e8, 1e9};
static const uint64_t pow10_int[] = {
    1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000};

/* Short decimals such as 0.5, 19.99 or 37.7749295 without the general
 * algorithm. If m / 10^k (m < 10^15, one correctly rounded division of
 * exact operands) is the double, then "m e-k" reads back as it, and since
 * distinct decimals of at most 15 digits never share a double (DBL_DIG),
 * no shorter decimal does: it is the shortest, so JavaScript prints it in
 * fixed notation for 1e-6 <= |d| < 1e21. The smallest k gives no trailing
 * zero. Returns false when no k <= 9 fits. */
static bool write_short_decimal(gql_buf *b, double d) {
  double a = d < 0 ? -d : d;
  if (!(a >= 1e-6 && a < 1e15))
    return false;
  for (int k = 1; k < (int)GQL_ARRAY_LEN(pow10_exact); k++) {
    double scaled = a * pow10_exact[k];
    if (scaled >= 1e15)
      return false;
    uint64_t m = (uint64_t)(scaled + 0.5);
    if ((double)m / pow10_exact[k] != a)
      continue;
    char tmp[40];
    char *end = tmp + sizeof tmp;
    char *p = gql_json_utoa_back(end, m % pow10_int[k]);
    while (end - p < k) /* leading zeros of the fraction */
      *--p = '0';
    *--p = '.';
    p = gql_json_utoa_back(p, m / pow10_int[k]);
    if (d < 0)
      *--p = '-';
    gql_buf_put(b, p, (size_t)(end - p));
    return true;
  }
  return false;
}

/* A finite double that is not an integer below 2^53. */
static __attribute__((noinline)) void write_fraction(gql_buf *b, double d) {
  if (write_short_decimal(b, d))
    return;
  char out[40]; /* gql_dtoa writes at most 32 */
  gql_buf_put(b, out, gql_dtoa(d, out));
}

void gql_json_write_double(gql_buf *b, double d) {
  /* Integers below 2^53 print all their digits in JavaScript, which is
   * what the integer path prints; -0 prints 0 in both. (NaN fails both
   * comparisons.) */
  if (GQL_LIKELY(d > -9007199254740992.0 && d < 9007199254740992.0)) {
    int64_t i = (int64_t)d;
    if ((double)i == d) {
      if (GQL_LIKELY(write_small_uint(b, (uint64_t)i)))
        return;
      write_int_any(b, i);
      return;
    }
  } else if (!isfinite(d)) {
    gql_buf_put(b, "null", 4);
    return;
  }
  write_fraction(b, d); /* a tail call: the integral path needs no frame */
}

/* ----------------------------------------------------------------- values */

static void write_number(gql_buf *b, const gql_json_value *v) {
  /* An int64 beyond 2^53 is not a JavaScript number: print the double as
   * JSON.stringify(JSON.parse(text)) would. */
  if (v->is_int && v->number.i > -9007199254740992 &&
      v->number.i < 9007199254740992)
    gql_json_write_int(b, v->number.i);
  else
    gql_json_write_double(b, v->number.d);
}

static void write_scalar(gql_buf *b, const gql_json_value *v) {
  switch (v->kind) {
  case GQL_JSON_BOOL:
    if (v->boolean)
      gql_buf_put(b, "true", 4);
    else
      gql_buf_put(b, "false", 5);
    return;
  case GQL_JSON_NUMBER:
    write_number(b, v);
    return;
  case GQL_JSON_STRING:
    gql_json_write_string(b, v->string);
    return;
  default:
    gql_buf_put(b, "null", 4);
    return;
  }
}

static bool is_container(const gql_json_value *v) {
  return v->kind == GQL_JSON_ARRAY || v->kind == GQL_JSON_OBJECT;
}

static size_t child_count(const gql_json_value *v) {
  return v->kind == GQL_JSON_ARRAY ? v->array.count : v->object.count;
}

static void newline(gql_buf *b, int indent, size_t depth) {
  size_t n = (size_t)indent * depth;
  if (!gql_buf_reserve(b, n + 1))
    return;
  b->data[b->len++] = '\n';
  memset(b->data + b->len, ' ', n);
  b->len += n;
}

typedef struct frame {
  const gql_json_value *v;
  size_t i;
} frame;

/* One frame per open container, on an explicit stack that grows on the
 * buffer's allocator: any depth a value was built with can be written. */
static int write_value(gql_buf *b, const gql_json_value *v, int indent) {
  if (!is_container(v) || child_count(v) == 0) {
    if (v->kind == GQL_JSON_ARRAY)
      gql_buf_put(b, "[]", 2);
    else if (v->kind == GQL_JSON_OBJECT)
      gql_buf_put(b, "{}", 2);
    else
      write_scalar(b, v);
    return b->failed ? GQL_ENOMEM : 0;
  }
  frame inline_frames[32];
  frame *st = inline_frames;
  size_t n = 0, cap = GQL_ARRAY_LEN(inline_frames);
  gql_buf_putc(b, v->kind == GQL_JSON_ARRAY ? '[' : '{');
  st[n++] = (frame){v, 0};
  while (n && !b->failed) {
    frame *f = &st[n - 1];
    const gql_json_value *c = f->v;
    bool obj = c->kind == GQL_JSON_OBJECT;
    if (f->i == child_count(c)) {
      if (indent)
        newline(b, indent, n - 1);
      gql_buf_putc(b, obj ? '}' : ']');
      n--;
      continue;
    }
    if (f->i)
      gql_buf_putc(b, ',');
    if (indent)
      newline(b, indent, n);
    const gql_json_value *x;
    if (obj) {
      const gql_json_member *m = &c->object.members[f->i];
      gql_json_write_string(b, m->key);
      gql_buf_putc(b, ':');
      if (indent)
        gql_buf_putc(b, ' ');
      x = &m->value;
    } else {
      x = &c->array.items[f->i];
    }
    f->i++;
    if (!is_container(x) || child_count(x) == 0) {
      if (x->kind == GQL_JSON_ARRAY)
        gql_buf_put(b, "[]", 2);
      else if (x->kind == GQL_JSON_OBJECT)
        gql_buf_put(b, "{}", 2);
      else
        write_scalar(b, x);
      continue;
    }
    if (n == cap) {
      frame *g = gql_alc_malloc(b->alc, cap * 2 * sizeof *g);
      if (!g) {
        b->failed = true;
        break;
      }
      memcpy(g, st, n * sizeof *g);
      if (st != inline_frames)
        gql_alc_free(b->alc, st, cap * sizeof *st);
      st = g;
      cap *= 2;
    }
    gql_buf_putc(b, x->kind == GQL_JSON_ARRAY ? '[' : '{');
    st[n++] = (frame){x, 0};
  }
  if (st != inline_frames)
    gql_alc_free(b->alc, st, cap * sizeof *st);
  return b->failed ? GQL_ENOMEM : 0;
}

int gql_json_write_value(gql_buf *b, const gql_json_value *v) {
  return write_value(b, v, 0);
}

int gql_json_write_value_pretty(gql_buf *b, const gql_json_value *v,
                                int indent) {
  if (indent < 1)
    indent = 0;
  if (indent > 10)
    indent = 10;
  return write_value(b, v, indent);
}

void gql_json_write_locations(gql_buf *b, const gql_location *locs,
                              uint32_t n) {
  if (!n)
    return;
  gql_buf_puts(b, ",\"locations\":[");
  for (uint32_t j = 0; j < n; j++)
    gql_buf_printf(b, "%s{\"line\":%u,\"column\":%u}", j ? "," : "",
                   locs[j].line, locs[j].column);
  gql_buf_putc(b, ']');
}

/* The errors as a JSON list, each with extensions.code when `code` is not
 * NULL. */
static void write_errors(gql_buf *b, const gql_error *items, uint32_t n,
                         const char *code) {
  gql_buf_putc(b, '[');
  for (uint32_t i = 0; i < n; i++) {
    gql_buf_puts(b, i ? ",{\"message\":" : "{\"message\":");
    gql_json_write_string(b, gql_cstr(items[i].message));
    gql_json_write_locations(b, items[i].locations, items[i].nlocations);
    if (code) {
      gql_buf_puts(b, ",\"extensions\":{\"code\":");
      gql_json_write_string(b, gql_cstr(code));
      gql_buf_putc(b, '}');
    }
    gql_buf_putc(b, '}');
  }
  gql_buf_putc(b, ']');
}

void gql_json_write_errors(gql_buf *b, const gql_error *items, uint32_t n) {
  write_errors(b, items, n, NULL);
}

int gql_errors_response(const gql_errors *errors, const char *code,
                        gql_arena *arena, gql_str *json) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_puts(&b, "{\"errors\":");
  write_errors(&b, errors ? errors->items : NULL, errors ? errors->count : 0,
               code);
  gql_buf_putc(&b, '}');
  const char *s = gql_buf_cstr(&b);
  char *copy = s ? gql_arena_strndup(arena, s, b.len) : NULL;
  *json = (gql_str){copy, copy ? b.len : 0};
  gql_buf_free(&b);
  return copy ? 0 : GQL_ENOMEM;
}
