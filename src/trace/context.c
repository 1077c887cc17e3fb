/* W3C Trace Context headers: traceparent and tracestate, read strictly
 * (what the spec says a vendor must reject is rejected) and written in
 * their normal form. */
#include "gql.h"

#include <string.h>

static inline bool blank(char c) {
  return c == ' ' || c == '\t';
}

/* Lowercase hex digits of s[0..n) into *v (n <= 16); false for anything
 * else (uppercase included: the spec allows only lowercase). */
static bool hex_field(const char *s, size_t n, uint64_t *v) {
  uint64_t x = 0;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    unsigned d;
    if (c >= '0' && c <= '9')
      d = (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f')
      d = (unsigned)(c - 'a' + 10);
    else
      return false;
    x = x << 4 | d;
  }
  *v = x;
  return true;
}

int gql_traceparent_parse(const char *s, size_t n, gql_trace_context *out) {
  while (n && blank(*s))
    s++, n--;
  while (n && blank(s[n - 1]))
    n--;
  uint64_t version, flags, hi, lo, parent;
  if (n < GQL_TRACEPARENT_LEN || !hex_field(s, 2, &version) ||
      version == 0xff || s[2] != '-' || s[35] != '-' || s[52] != '-')
    return GQL_EINVAL;
  /* version 00 is exactly 55 characters; a later one may add fields after
   * a '-' */
  if (version == 0 ? n != GQL_TRACEPARENT_LEN
                   : n > GQL_TRACEPARENT_LEN && s[55] != '-')
    return GQL_EINVAL;
  if (!hex_field(s + 3, 16, &hi) || !hex_field(s + 19, 16, &lo) ||
      !hex_field(s + 36, 16, &parent) || !hex_field(s + 53, 2, &flags))
    return GQL_EINVAL;
  if ((hi | lo) == 0 || parent == 0) /* all-zero ids are invalid */
    return GQL_EINVAL;
  out->trace_hi = hi;
  out->trace_lo = lo;
  out->parent_id = parent;
  out->flags = (uint8_t)flags;
  return 0;
}

static char *hex_out(char *w, uint64_t v, int digits) {
  static const char d[] = "0123456789abcdef";
  for (int i = digits - 1; i >= 0; i--, v >>= 4)
    w[i] = d[v & 15];
  return w + digits;
}

void gql_traceparent_format(const gql_trace_context *c, uint64_t span_id,
                            char out[GQL_TRACEPARENT_LEN + 1]) {
  char *w = out;
  *w++ = '0';
  *w++ = '0';
  *w++ = '-';
  w = hex_out(w, c->trace_hi, 16);
  w = hex_out(w, c->trace_lo, 16);
  *w++ = '-';
  w = hex_out(w, span_id, 16);
  *w++ = '-';
  w = hex_out(w, c->flags, 2);
  *w = 0;
}

/* ---- tracestate */

static inline bool lcalpha(char c) {
  return c >= 'a' && c <= 'z';
}
static inline bool digit(char c) {
  return c >= '0' && c <= '9';
}
static inline bool key_char(char c) {
  return lcalpha(c) || digit(c) || c == '_' || c == '-' || c == '*' || c == '/';
}

/* key = simple-key / tenant-id "@" system-id:
 *   simple-key = lcalpha 0*255(key-char)
 *   tenant-id = (lcalpha / DIGIT) 0*240(key-char)
 *   system-id = lcalpha 0*13(key-char) */
static bool key_ok(const char *k, size_t n) {
  const char *at = memchr(k, '@', n);
  if (!at) {
    if (n < 1 || n > 256 || !lcalpha(k[0]))
      return false;
    for (size_t i = 1; i < n; i++)
      if (!key_char(k[i]))
        return false;
    return true;
  }
  size_t t = (size_t)(at - k), sys = n - t - 1;
  if (t < 1 || t > 241 || sys < 1 || sys > 14 ||
      !(lcalpha(k[0]) || digit(k[0])))
    return false;
  for (size_t i = 1; i < t; i++)
    if (!key_char(k[i]))
      return false;
  if (!lcalpha(at[1]))
    return false;
  for (size_t i = 2; i <= sys; i++)
    if (!key_char(at[i]))
      return false;
  return true;
}

/* value = 0*255(chr) nblk-chr, nblk-chr = %x21-2B / %x2D-3C / %x3E-7E,
 * chr = %x20 / nblk-chr */
static bool value_ok(const char *v, size_t n) {
  if (n < 1 || n > 256 || v[n - 1] == ' ')
    return false;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)v[i];
    if (c < 0x20 || c > 0x7e || c == ',' || c == '=')
      return false;
  }
  return true;
}

typedef struct member {
  const char *p;
  size_t n, key_len;
} member;

int gql_tracestate_parse(const char *s, size_t n, gql_trace_context *c) {
  member m[GQL_TRACESTATE_MEMBERS];
  size_t nm = 0;
  c->tracestate[0] = 0;
  c->tracestate_len = 0;
  const char *end = s + n;
  while (s <= end) {
    const char *comma = memchr(s, ',', (size_t)(end - s));
    const char *e = comma ? comma : end, *b = s;
    while (b < e && blank(*b))
      b++;
    const char *t = e;
    while (t > b && blank(t[-1]))
      t--;
    if (t > b) { /* (empty members are allowed and skipped) */
      const char *eq = memchr(b, '=', (size_t)(t - b));
      if (!eq || nm == GQL_TRACESTATE_MEMBERS || !key_ok(b, (size_t)(eq - b)) ||
          !value_ok(eq + 1, (size_t)(t - eq - 1)))
        return GQL_EINVAL;
      for (size_t i = 0; i < nm; i++) /* keys are unique */
        if (m[i].key_len == (size_t)(eq - b) &&
            memcmp(m[i].p, b, m[i].key_len) == 0)
          return GQL_EINVAL;
      m[nm++] = (member){b, (size_t)(t - b), (size_t)(eq - b)};
    }
    if (!comma)
      break;
    s = comma + 1;
  }
  /* Over 512 characters: members over 128 go first, then the last ones. */
  size_t total = 0;
  for (size_t i = 0; i < nm; i++)
    total += m[i].n + (i ? 1 : 0);
  for (size_t i = nm; i-- > 0 && total > GQL_TRACESTATE_MAX;)
    if (m[i].n > 128) {
      total -= m[i].n + 1;
      m[i].n = 0;
    }
  for (size_t i = nm; i-- > 0 && total > GQL_TRACESTATE_MAX;)
    if (m[i].n) {
      total -= m[i].n + 1;
      m[i].n = 0;
    }
  char *w = c->tracestate;
  for (size_t i = 0; i < nm; i++) {
    if (!m[i].n)
      continue;
    if (w > c->tracestate)
      *w++ = ',';
    memcpy(w, m[i].p, m[i].n);
    w += m[i].n;
  }
  *w = 0;
  c->tracestate_len = (size_t)(w - c->tracestate);
  return 0;
}
