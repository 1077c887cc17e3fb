/* The http part's byte buffer: libgql's gql_output, and whether an append
 * failed (then later appends are dropped, and the request or connection
 * answers 503 or closes). On libgql's public API only, like the rest of
 * src/http, so that the WebSocket and SSE pieces (and the programs that
 * drive them: tests, fuzz targets, the benchmark's client) share it. */
#ifndef GQL_HTTP_BUF_H
#define GQL_HTTP_BUF_H

#include "gql.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static inline gql_str http_str(const char *p, size_t n) {
  return (gql_str){p, n};
}
static inline bool http_str_is(gql_str a, const char *b) {
  size_t n = strlen(b);
  return a.len == n && memcmp(a.ptr, b, n) == 0;
}

typedef struct http_buf {
  gql_output o;
  bool failed;
} http_buf;

static inline bool http_buf_reserve(http_buf *b, size_t extra) {
  if (!b->failed && gql_output_reserve(&b->o, extra) < 0)
    b->failed = true;
  return !b->failed;
}
static inline void http_buf_append(http_buf *b, const void *p, size_t n) {
  if (n && n <= b->o.cap - b->o.len && !b->failed) { /* usual: no call */
    memcpy(b->o.data + b->o.len, p, n);
    b->o.len += n;
    return;
  }
  if (!b->failed && gql_output_append(&b->o, p, n) < 0)
    b->failed = true;
}
static inline void http_buf_puts(http_buf *b, const char *s) {
  http_buf_append(b, s, strlen(s));
}
static inline void http_buf_putc(http_buf *b, char c) {
  http_buf_append(b, &c, 1);
}
/* Empty, keeping the memory unless one use made it over `keep` bytes. */
static inline void http_buf_clear(http_buf *b, size_t keep) {
  b->o.len = 0;
  b->failed = false;
  if (b->o.cap > keep)
    gql_output_free(&b->o);
}
static inline void http_buf_free(http_buf *b) {
  gql_output_free(&b->o);
  b->failed = false;
}

/* The bytes as a C string: a NUL after them, not counted in the length
 * ("" when an append failed). */
static inline const char *http_buf_cstr(http_buf *b) {
  if (!http_buf_reserve(b, 1))
    return "";
  b->o.data[b->o.len] = 0;
  return b->o.data;
}
/* A JSON string in quotes, escaped as JSON.stringify does. */
static inline void http_buf_json_string(http_buf *b, gql_str s) {
  if (!b->failed && gql_output_json_string(&b->o, s.ptr, s.len) < 0)
    b->failed = true;
}
/* printf-style; a formatted piece over 1 KiB is cut there (the callers
 * format short header lines and messages). */
__attribute__((format(printf, 2, 3))) static inline void
http_buf_printf(http_buf *b, const char *fmt, ...) {
  char tmp[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < 0)
    b->failed = true;
  else
    http_buf_append(b, tmp,
                    (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}
static inline bool http_str_eq(gql_str a, gql_str b) {
  return a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0);
}

/* ---- header values */

/* The next element of a comma-separated header value (Accept) from *i
 * (start at 0): false at the end. Elements are not trimmed. */
static inline bool http_list_next(gql_str list, size_t *i, gql_str *item) {
  if (*i >= list.len)
    return false;
  size_t end = *i;
  while (end < list.len && list.ptr[end] != ',')
    end++;
  *item = (gql_str){list.ptr + *i, end - *i};
  *i = end + 1;
  return true;
}

/* Media type of a header value: the part before ';', trimmed, lowercase
 * compared. */
static inline bool http_media_is(gql_str v, const char *type) {
  size_t n = 0;
  while (n < v.len && v.ptr[n] != ';' && v.ptr[n] != ',')
    n++;
  size_t s = 0;
  while (s < n && (v.ptr[s] == ' ' || v.ptr[s] == '\t'))
    s++;
  while (n > s && (v.ptr[n - 1] == ' ' || v.ptr[n - 1] == '\t'))
    n--;
  size_t tl = strlen(type);
  return n - s == tl && strncasecmp(v.ptr + s, type, tl) == 0;
}

/* Whether an Accept element says q=0 ("not acceptable", RFC 9110 12.4.2):
 * q=0, q=0. and q=0.000. */
static inline bool http_accept_refused(gql_str item) {
  for (size_t k = 0; k + 3 <= item.len; k++)
    if (strncasecmp(item.ptr + k, "q=0", 3) == 0 &&
        (k + 3 == item.len || item.ptr[k + 3] == ';' ||
         item.ptr[k + 3] == ' ' ||
         (item.ptr[k + 3] == '.' &&
          strspn(item.ptr + k + 4, "0") >= item.len - k - 4)))
      return true;
  return false;
}

#endif
