#include "json.h"

#include <stdio.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* The reader keeps one scratch stack of members. A value being parsed is
 * the top entry; an open array or object is an entry whose value is a
 * placeholder holding the index of its parent container, and its children
 * are the entries above it. Closing a container copies its children into
 * one arena block and pops them, so the arena only ever holds finished
 * arrays, and nesting costs no recursion. */

enum { INLINE_STACK = 64, INDEX_MIN_MEMBERS = 17, MAX_NUMBER_LEN = 1 << 16 };
#define NO_PARENT SIZE_MAX

typedef struct parser {
  const char *src;
  const char *p;
  const char *end;
  gql_arena *arena;
  const gql_allocator *alc;
  gql_json_member *stack;
  size_t top, cap;
  uint32_t depth, max_depth;
  gql_json_error *err;
  gql_json_member inline_stack[INLINE_STACK];
} parser;

struct gql_json_index {
  uint32_t mask;
  uint32_t slots[]; /* member index + 1; 0 is empty */
};

/* ---------------------------------------------------------------- errors */

static int fail(parser *ps, int rc, const char *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(parser *ps, int rc, const char *at, const char *fmt, ...) {
  gql_json_error *e = ps->err;
  if (!e)
    return rc;
  size_t len = (size_t)(ps->end - ps->src);
  e->offset = (size_t)(at - ps->src);
  e->location = gql_location_of(ps->src, len, e->offset);
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(e->message, sizeof e->message, fmt, ap);
  va_end(ap);
  if (n < 0)
    n = 0;
  if ((size_t)n < sizeof e->message)
    snprintf(e->message + n, sizeof e->message - (size_t)n,
             " at line %u, column %u", (unsigned)e->location.line,
             (unsigned)e->location.column);
  return rc;
}

/* Names the character at `at` for a message: 'x', U+00E9, end of input. */
static int unexpected(parser *ps, const char *at, const char *context) {
  if (at >= ps->end)
    return fail(ps, GQL_EJSON, at, "Unexpected end of input%s", context);
  unsigned char c = (unsigned char)*at;
  if (c > 0x20 && c < 0x7F)
    return fail(ps, GQL_EJSON, at, "Unexpected character '%c'%s", c, context);
  uint32_t cp = c;
  if (c >= 0x80 && !gql_utf8_decode(at, (size_t)(ps->end - at), &cp))
    return fail(ps, GQL_EJSON, at, "Invalid UTF-8");
  return fail(ps, GQL_EJSON, at, "Unexpected character U+%04X%s", (unsigned)cp,
              context);
}

static int nomem(parser *ps) {
  return fail(ps, GQL_ENOMEM, ps->p, "Out of memory");
}

/* ----------------------------------------------------------------- stack */

static bool grow_stack(parser *ps) {
  size_t cap = ps->cap * 2;
  size_t elem = sizeof(gql_json_member);
  if (cap > SIZE_MAX / elem)
    return false;
  gql_json_member *s;
  if (ps->stack == ps->inline_stack) {
    s = gql_alc_malloc(ps->alc, cap * elem);
    if (s)
      memcpy(s, ps->stack, ps->top * elem);
  } else {
    s = gql_alc_realloc(ps->alc, ps->stack, ps->cap * elem, cap * elem);
  }
  if (!s)
    return false;
  ps->stack = s;
  ps->cap = cap;
  return true;
}

/* ------------------------------------------------------------ whitespace */

static inline const char *skip_ws(const char *p, const char *end) {
  while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
    p++;
  return p;
}

/* --------------------------------------------------------------- strings */

#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

/* The bytes of w that end the fast path ('"', '\\', a control character
 * or a non-ASCII byte) have their high bit set in the result. Bytes below
 * the first such byte are never flagged (no borrow reaches them), so on a
 * little-endian machine the lowest set bit locates it. */
static inline uint64_t special_mask(uint64_t w) {
  uint64_t quote = w ^ (ONES * '"');
  uint64_t slash = w ^ (ONES * '\\');
  uint64_t t = ((quote - ONES) & ~quote) | ((slash - ONES) & ~slash) |
               ((w - ONES * 0x20) & ~w) | w;
  return t & HIGHS;
}

static inline bool plain_byte(unsigned char c) {
  return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

/* The first byte at or after s that is not plain, or end. With SSE2
 * (every x86-64), 16 bytes a step: as signed bytes, a control character
 * and a non-ASCII byte are both below 0x20, so one compare finds them. */
static inline const char *skip_plain(const char *s, const char *end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i slash = _mm_set1_epi8('\\');
  const __m128i space = _mm_set1_epi8(0x20);
  while (end - s >= 16) {
    __m128i w = _mm_loadu_si128((const __m128i *)(const void *)s);
    __m128i t = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(w, quote), _mm_cmpeq_epi8(w, slash)),
        _mm_cmplt_epi8(w, space));
    unsigned m = (unsigned)_mm_movemask_epi8(t);
    if (m)
      return s + __builtin_ctz(m);
    s += 16;
  }
#endif
  while (end - s >= 8) {
    uint64_t w;
    memcpy(&w, s, 8);
    uint64_t t = special_mask(w);
    if (t) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
      return s + (__builtin_ctzll(t) >> 3);
#else
      break;
#endif
    }
    s += 8;
  }
  while (s < end && plain_byte((unsigned char)*s))
    s++;
  return s;
}

static int hex4(const char *p, const char *end, uint32_t *out) {
  if (end - p < 4)
    return -1;
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) {
    char c = p[i];
    uint32_t d;
    if (c >= '0' && c <= '9')
      d = (uint32_t)(c - '0');
    else if (c >= 'a' && c <= 'f')
      d = (uint32_t)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      d = (uint32_t)(c - 'A' + 10);
    else
      return -1;
    v = v << 4 | d;
  }
  *out = v;
  return 0;
}

/* The length of the well-formed multi-byte UTF-8 sequence at s, or 0
 * (Unicode table 3-7: no overlong forms, surrogates or code points above
 * U+10FFFF). Inline because non-ASCII text goes through it per character. */
static inline size_t utf8_len(const char *str, const char *end) {
  const unsigned char *s = (const unsigned char *)str;
  size_t n = (size_t)(end - str);
  unsigned c = s[0];
  if (c >= 0xC2 && c <= 0xDF)
    return n >= 2 && (s[1] & 0xC0) == 0x80 ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (n < 3 || (s[2] & 0xC0) != 0x80)
      return 0;
    unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    return s[1] >= lo && s[1] <= hi ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (n < 4 || (s[2] & 0xC0) != 0x80 || (s[3] & 0xC0) != 0x80)
      return 0;
    unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    return s[1] >= lo && s[1] <= hi ? 4 : 0;
  }
  return 0;
}

static int control_char(parser *ps, const char *at) {
  return fail(ps, GQL_EJSON, at, "Invalid control character U+%04X in string",
              (unsigned)(unsigned char)*at);
}

/* Decodes the string whose escapes start at `s` (the body starts at
 * `body`) into the arena. `raw_end` is the closing quote or the end of
 * input, found by a prior scan; the decoded text is never longer. */
static int decode_string(parser *ps, const char *body, const char *s,
                         const char *raw_end, gql_str *out) {
  const char *end = ps->end;
  char *buf = gql_arena_alloc(ps->arena, (size_t)(raw_end - body) + 1);
  if (!buf)
    return nomem(ps);
  size_t n = (size_t)(s - body);
  memcpy(buf, body, n);
  for (;;) {
    const char *run = s;
    s = skip_plain(s, end);
    memcpy(buf + n, run, (size_t)(s - run));
    n += (size_t)(s - run);
    if (s >= end)
      return fail(ps, GQL_EJSON, end, "Unterminated string");
    unsigned char c = (unsigned char)*s;
    if (c == '"') {
      ps->p = s + 1;
      *out = (gql_str){buf, n};
      return 0;
    }
    if (c < 0x20)
      return control_char(ps, s);
    if (c >= 0x80) {
      size_t l = utf8_len(s, end);
      if (!l)
        return fail(ps, GQL_EJSON, s, "Invalid UTF-8 in string");
      memcpy(buf + n, s, l);
      n += l;
      s += l;
      continue;
    }
    if (s + 1 >= end)
      return fail(ps, GQL_EJSON, end, "Unterminated string");
    char e = s[1];
    char simple = 0;
    switch (e) {
    case '"':
      simple = '"';
      break;
    case '\\':
      simple = '\\';
      break;
    case '/':
      simple = '/';
      break;
    case 'b':
      simple = '\b';
      break;
    case 'f':
      simple = '\f';
      break;
    case 'n':
      simple = '\n';
      break;
    case 'r':
      simple = '\r';
      break;
    case 't':
      simple = '\t';
      break;
    case 'u':
      break;
    default:
      if ((unsigned char)e > 0x20 && (unsigned char)e < 0x7F)
        return fail(ps, GQL_EJSON, s, "Invalid escape sequence '\\%c'", e);
      return fail(ps, GQL_EJSON, s, "Invalid escape sequence");
    }
    if (simple) {
      buf[n++] = simple;
      s += 2;
      continue;
    }
    uint32_t cp;
    if (hex4(s + 2, end, &cp) < 0)
      return fail(ps, GQL_EJSON, s,
                  "Invalid Unicode escape: \\u must be followed by 4 hex "
                  "digits");
    if (cp >= 0xDC00 && cp <= 0xDFFF)
      return fail(ps, GQL_EJSON, s, "Lone low surrogate '\\u%04X' in string",
                  (unsigned)cp);
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      uint32_t lo;
      if (end - s < 12 || s[6] != '\\' || s[7] != 'u' ||
          hex4(s + 8, end, &lo) < 0 || lo < 0xDC00 || lo > 0xDFFF)
        return fail(ps, GQL_EJSON, s, "Lone high surrogate '\\u%04X' in string",
                    (unsigned)cp);
      cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
      s += 6;
    }
    n += gql_utf8_encode(cp, buf + n);
    s += 6;
  }
}

/* Parses the string whose opening quote is at ps->p. Without escapes the
 * result is a slice of the source. */
static int parse_string(parser *ps, gql_str *out) {
  const char *end = ps->end;
  const char *body = ps->p + 1;
  const char *s = body;
  for (;;) {
    s = skip_plain(s, end);
    if (s >= end)
      return fail(ps, GQL_EJSON, end, "Unterminated string");
    unsigned char c = (unsigned char)*s;
    if (GQL_LIKELY(c == '"')) {
      ps->p = s + 1;
      *out = (gql_str){body, (size_t)(s - body)};
      return 0;
    }
    if (c == '\\')
      break;
    if (c < 0x20)
      return control_char(ps, s);
    size_t l = utf8_len(s, end);
    if (!l)
      return fail(ps, GQL_EJSON, s, "Invalid UTF-8 in string");
    s += l;
  }
  /* Escapes: find the closing quote to size the copy, then decode. */
  const char *q = s;
  while (q < end && *q != '"') {
    if (*q == '\\' && end - q < 2) {
      q = end;
      break;
    }
    q += *q == '\\' ? 2 : 1;
  }
  return decode_string(ps, body, s, q, out);
}

/* --------------------------------------------------------------- numbers */

static const double pow10_exact[] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static inline bool digit_at(const char *p, const char *end) {
  return p < end && gql_is_digit(*p);
}

/* Sets the integer view of a number from its double (Number.isInteger). */
static void set_int_from_double(gql_json_value *v) {
  double d = v->number.d;
  if (d >= -9223372036854775808.0 && d < 9223372036854775808.0 &&
      (double)(int64_t)d == d) {
    v->is_int = true;
    v->number.i = (int64_t)d;
  }
}

static int parse_number(parser *ps, gql_json_value *v) {
  const char *start = ps->p, *p = start, *end = ps->end;
  bool neg = false;
  if (*p == '-') {
    neg = true;
    p++;
  }
  uint64_t m = 0;
  int digits = 0;
  if (!digit_at(p, end))
    return p < end ? fail(ps, GQL_EJSON, p,
                          "Invalid number: expected a digit after '-'")
                   : unexpected(ps, p, "");
  if (*p == '0') {
    p++;
    digits = 1;
    if (digit_at(p, end))
      return fail(ps, GQL_EJSON, start,
                  "Invalid number: leading zeros are not allowed");
  } else {
    while (digit_at(p, end)) {
      if (digits < 19)
        m = m * 10 + (uint64_t)(*p - '0');
      digits++;
      p++;
    }
  }
  int frac = 0; /* fraction digits kept in m */
  bool plain = true;
  if (p < end && *p == '.') {
    plain = false;
    p++;
    if (!digit_at(p, end))
      return fail(ps, GQL_EJSON, p,
                  "Invalid number: expected a digit after '.'");
    while (digit_at(p, end)) {
      if (digits < 19) {
        m = m * 10 + (uint64_t)(*p - '0');
        frac++;
      }
      digits++;
      p++;
    }
  }
  int exp = 0;
  if (p < end && (*p == 'e' || *p == 'E')) {
    plain = false;
    p++;
    bool eneg = false;
    if (p < end && (*p == '+' || *p == '-'))
      eneg = *p++ == '-';
    if (!digit_at(p, end))
      return fail(ps, GQL_EJSON, p,
                  "Invalid number: expected a digit in the exponent");
    while (digit_at(p, end)) {
      if (exp < 100000)
        exp = exp * 10 + (*p - '0');
      p++;
    }
    if (eneg)
      exp = -exp;
  }
  size_t len = (size_t)(p - start);
  if (len > MAX_NUMBER_LEN)
    return fail(ps, GQL_ELIMIT, start, "Number longer than %d characters",
                MAX_NUMBER_LEN);
  ps->p = p;
  v->kind = GQL_JSON_NUMBER;
  v->is_int = false;
  if (plain && digits <= 19 &&
      (m <= (uint64_t)INT64_MAX || (neg && m == (uint64_t)INT64_MAX + 1))) {
    /* An integer literal: exact in int64; int64 → double rounds right. */
    v->is_int = true;
    v->number.i = neg ? (int64_t)(0 - m) : (int64_t)m;
    v->number.d = neg ? -(double)m : (double)m;
    return 0;
  }
  int e10 = exp - frac;
  double d;
  if (digits <= 19 && m <= (1ull << 53) && e10 >= -22 && e10 <= 22) {
    /* Clinger's fast path: both operands exact, one rounding. */
    d = (double)m;
    d = e10 < 0 ? d / pow10_exact[-e10] : d * pow10_exact[e10];
    if (neg)
      d = -d;
  } else {
    d = gql_strtod(start, len);
  }
  if (d - d != 0) /* infinite */
    return fail(ps, GQL_EJSON, start, "Number out of range: %.*s",
                len > 40 ? 40 : (int)len, start);
  v->number.d = d;
  set_int_from_double(v);
  return 0;
}

/* -------------------------------------------------------------- literals */

static int parse_literal(parser *ps, const char *lit, size_t n) {
  const char *p = ps->p;
  for (size_t i = 0; i < n; i++) {
    if (p + i >= ps->end || p[i] != lit[i])
      return unexpected(ps, p + i, "");
  }
  ps->p = p + n;
  return 0;
}

/* ---------------------------------------------------------------- objects */

int gql_json_object_index(gql_arena *arena, gql_json_value *obj) {
  size_t count = obj->object.count;
  if (obj->kind != GQL_JSON_OBJECT || count >= UINT32_MAX / 4)
    return 0; /* nothing to index, or too big: lookups scan */
  uint32_t cap = 16;
  while (cap < count * 2)
    cap *= 2;
  gql_json_index *ix =
      gql_arena_alloc(arena, sizeof *ix + (size_t)cap * sizeof(uint32_t));
  if (!ix)
    return GQL_ENOMEM;
  ix->mask = cap - 1;
  memset(ix->slots, 0, (size_t)cap * sizeof(uint32_t));
  uint64_t seed = gql_hash_seed();
  const gql_json_member *m = obj->object.members;
  for (uint32_t i = 0; i < (uint32_t)count; i++) {
    uint32_t h =
        (uint32_t)gql_hash(m[i].key.ptr, m[i].key.len, seed) & ix->mask;
    for (;;) {
      uint32_t s = ix->slots[h];
      if (!s || gql_str_eq(m[s - 1].key, m[i].key)) {
        ix->slots[h] = i + 1; /* a repeated key: the last one wins */
        break;
      }
      h = (h + 1) & ix->mask;
    }
  }
  obj->object.index = ix;
  return 0;
}

const gql_json_value *gql_json_get(const gql_json_value *obj, gql_str key) {
  if (!obj || obj->kind != GQL_JSON_OBJECT)
    return NULL;
  const gql_json_member *m = obj->object.members;
  const gql_json_index *ix = obj->object.index;
  if (ix) {
    uint32_t h =
        (uint32_t)gql_hash(key.ptr, key.len, gql_hash_seed()) & ix->mask;
    for (;;) {
      uint32_t s = ix->slots[h];
      if (!s)
        return NULL;
      if (gql_str_eq(m[s - 1].key, key))
        return &m[s - 1].value;
      h = (h + 1) & ix->mask;
    }
  }
  for (size_t i = obj->object.count; i-- > 0;) {
    if (gql_str_eq(m[i].key, key))
      return &m[i].value;
  }
  return NULL;
}

/* Moves the children of the container at stack[open] into the arena. */
static int close_container(parser *ps, size_t open) {
  gql_json_member *slot = &ps->stack[open];
  size_t n = ps->top - open - 1;
  gql_json_member *kids = slot + 1;
  if (slot->value.kind == GQL_JSON_ARRAY) {
    gql_json_value *items = NULL;
    if (n) {
      items = gql_arena_alloc(ps->arena, n * sizeof *items);
      if (!items)
        return nomem(ps);
      for (size_t i = 0; i < n; i++)
        items[i] = kids[i].value;
    }
    slot->value.array.items = items;
    slot->value.array.count = n;
  } else {
    gql_json_member *members = NULL;
    if (n) {
      members = gql_arena_alloc(ps->arena, n * sizeof *members);
      if (!members)
        return nomem(ps);
      memcpy(members, kids, n * sizeof *members);
    }
    slot->value.object.members = members;
    slot->value.object.count = n;
    slot->value.object.index = NULL;
    if (n >= INDEX_MIN_MEMBERS &&
        gql_json_object_index(ps->arena, &slot->value) < 0)
      return nomem(ps);
  }
  ps->top = open + 1;
  ps->depth--;
  return 0;
}

/* ------------------------------------------------------------------ main */

/* Reads `"key" :` at ps->p (after whitespace) into a new stack entry. */
static int push_key(parser *ps) {
  if (ps->p >= ps->end || *ps->p != '"')
    return unexpected(ps, ps->p, ", expected a string key");
  if (ps->top == ps->cap && !grow_stack(ps))
    return nomem(ps);
  gql_json_member *slot = &ps->stack[ps->top];
  int rc = parse_string(ps, &slot->key);
  if (rc)
    return rc;
  ps->p = skip_ws(ps->p, ps->end);
  if (ps->p >= ps->end || *ps->p != ':')
    return unexpected(ps, ps->p, ", expected ':' after the key");
  ps->p = skip_ws(ps->p + 1, ps->end);
  ps->top++;
  return 0;
}

static int push_item(parser *ps) {
  if (ps->top == ps->cap && !grow_stack(ps))
    return nomem(ps);
  ps->stack[ps->top].key = (gql_str){NULL, 0};
  ps->top++;
  return 0;
}

static int run(parser *ps) {
  size_t cur = NO_PARENT; /* index of the innermost open container */
  int rc;
  ps->p = skip_ws(ps->p, ps->end);
  if ((rc = push_item(ps)))
    return rc;
value:
  /* Parse the value of stack[top - 1]; ps->p is past whitespace. */
  {
    size_t at = ps->top - 1;
    gql_json_value *v = &ps->stack[at].value;
    v->verbatim = false;
    if (ps->p >= ps->end)
      return unexpected(ps, ps->p, "");
    switch (*ps->p) {
    case '{':
    case '[': {
      if (ps->depth >= ps->max_depth)
        return fail(ps, GQL_ELIMIT, ps->p, "Nesting deeper than %u levels",
                    (unsigned)ps->max_depth);
      bool obj = *ps->p == '{';
      ps->depth++;
      v->kind = obj ? GQL_JSON_OBJECT : GQL_JSON_ARRAY;
      v->is_int = false;
      v->array.count = cur; /* the parent, until closed */
      cur = at;
      ps->p = skip_ws(ps->p + 1, ps->end);
      if (ps->p < ps->end && *ps->p == (obj ? '}' : ']')) {
        ps->p++;
        goto close;
      }
      if ((rc = obj ? push_key(ps) : push_item(ps)))
        return rc;
      goto value;
    }
    case '"':
      v->kind = GQL_JSON_STRING;
      v->is_int = false;
      if ((rc = parse_string(ps, &ps->stack[at].value.string)))
        return rc;
      /* a slice ends at the closing quote; a decoded copy is elsewhere */
      ps->stack[at].value.verbatim =
          ps->stack[at].value.string.ptr + ps->stack[at].value.string.len ==
          ps->p - 1;
      break;
    case 't':
      *v = (gql_json_value){.kind = GQL_JSON_BOOL, .boolean = true};
      if ((rc = parse_literal(ps, "true", 4)))
        return rc;
      break;
    case 'f':
      *v = (gql_json_value){.kind = GQL_JSON_BOOL, .boolean = false};
      if ((rc = parse_literal(ps, "false", 5)))
        return rc;
      break;
    case 'n':
      *v = (gql_json_value){.kind = GQL_JSON_NULL};
      if ((rc = parse_literal(ps, "null", 4)))
        return rc;
      break;
    default:
      if (*ps->p == '-' || (unsigned)(*ps->p - '0') < 10) {
        if ((rc = parse_number(ps, v)))
          return rc;
        break;
      }
      return unexpected(ps, ps->p, "");
    }
  }
next:
  /* A value is complete; continue in the innermost container. */
  if (cur == NO_PARENT)
    return 0;
  ps->p = skip_ws(ps->p, ps->end);
  {
    bool obj = ps->stack[cur].value.kind == GQL_JSON_OBJECT;
    char close_ch = obj ? '}' : ']';
    if (ps->p < ps->end && *ps->p == ',') {
      const char *comma = ps->p;
      ps->p = skip_ws(ps->p + 1, ps->end);
      if (ps->p < ps->end && *ps->p == close_ch)
        return fail(ps, GQL_EJSON, comma, "Trailing comma before '%c'",
                    close_ch);
      if ((rc = obj ? push_key(ps) : push_item(ps)))
        return rc;
      goto value;
    }
    if (ps->p < ps->end && *ps->p == close_ch) {
      ps->p++;
      goto close;
    }
    return unexpected(ps, ps->p,
                      obj ? ", expected ',' or '}'" : ", expected ',' or ']'");
  }
close : {
  size_t parent = ps->stack[cur].value.array.count;
  if ((rc = close_container(ps, cur)))
    return rc;
  cur = parent;
  goto next;
}
}

int gql_json_parse(gql_arena *arena, const char *src, size_t len,
                   const gql_json_options *opt, gql_json_value **out,
                   gql_json_error *err) {
  parser ps;
  ps.src = src;
  ps.p = src;
  ps.end = src + len;
  ps.arena = arena;
  ps.alc = opt ? opt->alc : NULL;
  ps.stack = ps.inline_stack;
  ps.top = 0;
  ps.cap = INLINE_STACK;
  ps.depth = 0;
  ps.max_depth =
      opt && opt->max_depth ? opt->max_depth : GQL_JSON_DEFAULT_MAX_DEPTH;
  ps.err = err;
  if (err) {
    err->message[0] = 0;
    err->offset = 0;
    err->location = (gql_location){1, 1};
  }
  *out = NULL;
  size_t max_size =
      opt && opt->max_size ? opt->max_size : GQL_JSON_DEFAULT_MAX_SIZE;
  if (len > max_size)
    return fail(&ps, GQL_ELIMIT, src,
                "Document of %zu bytes exceeds the limit of %zu bytes", len,
                max_size);
  int rc = run(&ps);
  if (!rc) {
    ps.p = skip_ws(ps.p, ps.end);
    if (ps.p < ps.end)
      rc = unexpected(&ps, ps.p, " after the JSON value");
  }
  if (!rc) {
    gql_json_value *root = gql_arena_alloc(arena, sizeof *root);
    if (root) {
      *root = ps.stack[0].value;
      *out = root;
    } else {
      rc = nomem(&ps);
    }
  }
  if (ps.stack != ps.inline_stack)
    gql_alc_free(ps.alc, ps.stack, ps.cap * sizeof *ps.stack);
  return rc;
}

/* -------------------------------------------------------------- equality */

/* Compares two values without their children; pushes nothing. */
static bool shallow_equal(const gql_json_value *a, const gql_json_value *b) {
  if (a->kind != b->kind)
    return false;
  switch (a->kind) {
  case GQL_JSON_NULL:
    return true;
  case GQL_JSON_BOOL:
    return a->boolean == b->boolean;
  case GQL_JSON_NUMBER:
    return a->number.d == b->number.d;
  case GQL_JSON_STRING:
    return gql_str_eq(a->string, b->string);
  case GQL_JSON_ARRAY:
    return a->array.count == b->array.count;
  default:
    return a->object.count == b->object.count;
  }
}

/* Containers (of equal counts) holding the very same items are equal
 * without a walk: merged trees share parts. */
static bool same_children(const gql_json_value *a, const gql_json_value *b) {
  if (a->kind == GQL_JSON_ARRAY)
    return a->array.items == b->array.items;
  return a->kind == GQL_JSON_OBJECT && a->object.members == b->object.members;
}

typedef struct eq_frame {
  const gql_json_value *a, *b;
  size_t i;
} eq_frame;

/* Walks both trees in lockstep with an explicit stack, one frame per open
 * container, so deep values cannot overflow the C stack. Running out of
 * memory for a very deep stack compares unequal. */
bool gql_json_equal(const gql_json_value *a, const gql_json_value *b) {
  if (!shallow_equal(a, b))
    return false;
  if ((a->kind != GQL_JSON_ARRAY && a->kind != GQL_JSON_OBJECT) ||
      same_children(a, b))
    return true;
  eq_frame inline_frames[32];
  eq_frame *st = inline_frames;
  size_t n = 0, cap = GQL_ARRAY_LEN(inline_frames);
  bool eq = true;
  st[n++] = (eq_frame){a, b, 0};
  while (n && eq) {
    eq_frame *f = &st[n - 1];
    bool obj = f->a->kind == GQL_JSON_OBJECT;
    size_t count = obj ? f->a->object.count : f->a->array.count;
    if (f->i == count) {
      n--;
      continue;
    }
    size_t i = f->i++;
    const gql_json_value *x, *y;
    if (obj) {
      const gql_json_member *ma = &f->a->object.members[i];
      const gql_json_member *mb = &f->b->object.members[i];
      if (!gql_str_eq(ma->key, mb->key)) {
        eq = false;
        break;
      }
      x = &ma->value, y = &mb->value;
    } else {
      x = &f->a->array.items[i], y = &f->b->array.items[i];
    }
    if (!shallow_equal(x, y)) {
      eq = false;
      break;
    }
    if ((x->kind != GQL_JSON_ARRAY && x->kind != GQL_JSON_OBJECT) ||
        same_children(x, y))
      continue;
    if (n == cap) {
      eq_frame *g = gql_alc_malloc(NULL, cap * 2 * sizeof *g);
      if (!g) {
        eq = false;
        break;
      }
      memcpy(g, st, n * sizeof *g);
      if (st != inline_frames)
        gql_alc_free(NULL, st, cap * sizeof *st);
      st = g;
      cap *= 2;
    }
    st[n++] = (eq_frame){x, y, 0};
  }
  if (st != inline_frames)
    gql_alc_free(NULL, st, cap * sizeof *st);
  return eq;
}

/* Every member of a has an equal one in b (the last of a key, as
 * JSON.parse keeps it), and b has no key a lacks. */
static bool object_same(const gql_json_value *a, const gql_json_value *b) {
  for (size_t i = 0; i < a->object.count; i++) {
    const gql_json_member *m = &a->object.members[i];
    const gql_json_value *bv = gql_json_get(b, m->key);
    if (!bv || !gql_json_same(gql_json_get(a, m->key), bv))
      return false;
  }
  for (size_t i = 0; i < b->object.count; i++)
    if (!gql_json_get(a, b->object.members[i].key))
      return false;
  return true;
}

bool gql_json_same(const gql_json_value *a, const gql_json_value *b) {
  if (a->kind != b->kind)
    return false;
  switch (a->kind) {
  case GQL_JSON_NULL:
    return true;
  case GQL_JSON_BOOL:
    return a->boolean == b->boolean;
  case GQL_JSON_NUMBER:
    return a->is_int && b->is_int ? a->number.i == b->number.i
                                  : a->number.d == b->number.d;
  case GQL_JSON_STRING:
    return gql_str_eq(a->string, b->string);
  case GQL_JSON_ARRAY:
    if (a->array.count != b->array.count)
      return false;
    for (size_t i = 0; i < a->array.count; i++)
      if (!gql_json_same(&a->array.items[i], &b->array.items[i]))
        return false;
    return true;
  default:
    return object_same(a, b);
  }
}
