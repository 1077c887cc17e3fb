/* Incremental delivery over HTTP: Accept negotiation and framing (see
 * incremental.h). */
#include "incremental.h"

#include <string.h>
#include <strings.h>

/* ---- Accept */

typedef struct range {
  const char *type, *sub; /* lower-case compare only */
  size_t type_len, sub_len;
  int q; /* thousandths; -1 invalid */
  bool legacy, v02, other_spec;
} range;

static bool is_ws(char c) {
  return c == ' ' || c == '\t';
}

static bool eq_ci(const char *p, size_t n, const char *lit) {
  return strlen(lit) == n && strncasecmp(p, lit, n) == 0;
}

/* RFC 9110 weight: "0", "0.5", "1", "1.000" as thousandths; -1 if not. */
static int weight(const char *p, size_t n) {
  if (!n || (p[0] != '0' && p[0] != '1') || (n > 1 && p[1] != '.') || n > 5)
    return -1;
  int q = (p[0] - '0') * 1000, scale = 100;
  for (size_t i = 2; i < n; i++, scale /= 10) {
    if (p[i] < '0' || p[i] > '9')
      return -1;
    q += (p[i] - '0') * scale;
  }
  return q > 1000 ? -1 : q;
}

/* One parameter `name=value` (value possibly quoted) of a media range. */
static void param(range *r, const char *p, size_t n) {
  while (n && is_ws(*p))
    p++, n--;
  const char *eq = memchr(p, '=', n);
  if (!eq)
    return;
  size_t nl = (size_t)(eq - p), vl = n - nl - 1;
  const char *v = eq + 1;
  while (nl && is_ws(p[nl - 1]))
    nl--;
  while (vl && is_ws(*v))
    v++, vl--;
  if (vl >= 2 && v[0] == '"' && v[vl - 1] == '"')
    v++, vl -= 2;
  if (eq_ci(p, nl, "q"))
    r->q = weight(v, vl);
  else if (eq_ci(p, nl, "deferSpec"))
    *(vl == 8 && memcmp(v, "20220824", 8) == 0 ? &r->legacy : &r->other_spec) =
        true;
  else if (eq_ci(p, nl, "incrementalSpec"))
    *(eq_ci(v, vl, "v0.2") ? &r->v02 : &r->other_spec) = true;
}

/* The end of the element starting at `i` (at `sep` outside quotes, or n). */
static size_t element_end(const char *s, size_t i, size_t n, char sep) {
  bool quoted = false;
  for (; i < n; i++) {
    if (s[i] == '"')
      quoted = !quoted;
    else if (s[i] == '\\' && quoted && i + 1 < n)
      i++;
    else if (s[i] == sep && !quoted)
      break;
  }
  return i;
}

static range parse_range(const char *s, size_t n) {
  range r = {.q = 1000};
  size_t i = 0;
  while (i < n && is_ws(s[i]))
    i++;
  size_t end = element_end(s, i, n, ';');
  size_t tl = end;
  while (tl > i && is_ws(s[tl - 1]))
    tl--;
  const char *slash = memchr(s + i, '/', tl - i);
  if (!slash) {
    r.q = -1;
    return r;
  }
  r.type = s + i;
  r.type_len = (size_t)(slash - (s + i));
  r.sub = slash + 1;
  r.sub_len = (size_t)(s + tl - r.sub);
  while (end < n) {
    size_t start = end + 1;
    end = element_end(s, start, n, ';');
    param(&r, s + start, end - start);
  }
  return r;
}

/* What a range offers, and how specific it is (a wildcard gives way to a
 * named type of the same weight). */
static gql_http_stream_format offer(const range *r, int *specific) {
  bool any_type = eq_ci(r->type, r->type_len, "*");
  bool any_sub = eq_ci(r->sub, r->sub_len, "*");
  *specific = !any_sub;
  if (any_type)
    return any_sub ? GQL_HTTP_STREAM_MULTIPART : GQL_HTTP_STREAM_NONE;
  if (eq_ci(r->type, r->type_len, "multipart") &&
      (any_sub || eq_ci(r->sub, r->sub_len, "mixed"))) {
    if (r->other_spec || (r->legacy && r->v02))
      return GQL_HTTP_STREAM_NONE;
    return r->legacy ? GQL_HTTP_STREAM_MULTIPART_LEGACY
                     : GQL_HTTP_STREAM_MULTIPART;
  }
  if (eq_ci(r->type, r->type_len, "text") &&
      (any_sub || eq_ci(r->sub, r->sub_len, "event-stream")))
    return GQL_HTTP_STREAM_SSE;
  return GQL_HTTP_STREAM_NONE;
}

gql_http_stream_format gql_http_stream_negotiate(const char *accept,
                                                 size_t len) {
  if (!accept || !len)
    return GQL_HTTP_STREAM_MULTIPART;
  gql_http_stream_format best = GQL_HTTP_STREAM_NONE;
  int best_q = 0, best_specific = 0;
  for (size_t i = 0; i <= len;) {
    size_t end = element_end(accept, i, len, ',');
    range r = parse_range(accept + i, end - i);
    int specific;
    gql_http_stream_format f =
        r.q > 0 ? offer(&r, &specific) : GQL_HTTP_STREAM_NONE;
    if (f != GQL_HTTP_STREAM_NONE &&
        (r.q > best_q || (r.q == best_q && specific > best_specific))) {
      best = f;
      best_q = r.q;
      best_specific = specific;
    }
    i = end + 1;
  }
  return best;
}

const char *gql_http_stream_content_type(gql_http_stream_format f) {
  switch (f) {
  case GQL_HTTP_STREAM_MULTIPART:
    return "multipart/mixed; boundary=\"-\"; incrementalSpec=v0.2";
  case GQL_HTTP_STREAM_MULTIPART_LEGACY:
    return "multipart/mixed; boundary=\"-\"; deferSpec=20220824";
  case GQL_HTTP_STREAM_SSE:
    return "text/event-stream; charset=utf-8";
  case GQL_HTTP_STREAM_NONE:
    break;
  }
  return NULL;
}

/* ---- framing */

#define PART_HEAD "\r\nContent-Type: application/json; charset=utf-8\r\n\r\n"
static const char mp_first[] = "\r\n---" PART_HEAD;
static const char mp_head[] = PART_HEAD;
static const char mp_next[] = "\r\n---";
static const char mp_close[] = "\r\n-----\r\n";
static const char sse_head[] = "event: next\ndata: ";
static const char sse_next[] = "\n\n";
static const char sse_close[] = "\n\nevent: complete\ndata:\n\n";

#define S_(s) (s), sizeof(s) - 1

gql_http_frame gql_http_stream_frame(gql_http_stream_format f, bool first,
                                     bool last) {
  switch (f) {
  case GQL_HTTP_STREAM_MULTIPART:
  case GQL_HTTP_STREAM_MULTIPART_LEGACY:
    if (first)
      return last ? (gql_http_frame){S_(mp_first), S_(mp_close)}
                  : (gql_http_frame){S_(mp_first), S_(mp_next)};
    return last ? (gql_http_frame){S_(mp_head), S_(mp_close)}
                : (gql_http_frame){S_(mp_head), S_(mp_next)};
  case GQL_HTTP_STREAM_SSE:
    return last ? (gql_http_frame){S_(sse_head), S_(sse_close)}
                : (gql_http_frame){S_(sse_head), S_(sse_next)};
  case GQL_HTTP_STREAM_NONE:
    break;
  }
  return (gql_http_frame){"", 0, "", 0};
}

const char gql_http_stream_refusal_message[] =
    "The operation uses incremental delivery (@defer or @stream), but the "
    "client accepts neither multipart/mixed nor text/event-stream "
    "responses. To receive it, add the HTTP header 'Accept: "
    "multipart/mixed;incrementalSpec=v0.2' (or "
    "'multipart/mixed;deferSpec=20220824', or 'text/event-stream').";

const char gql_http_stream_accept[] =
    "multipart/mixed;incrementalSpec=v0.2, multipart/mixed;deferSpec=20220824, "
    "text/event-stream";

size_t gql_http_chunk_head(char *out, size_t n) {
  static const char hex[] = "0123456789abcdef";
  char tmp[16];
  size_t k = 0;
  do {
    tmp[k++] = hex[n & 15];
    n >>= 4;
  } while (n);
  for (size_t i = 0; i < k; i++)
    out[i] = tmp[k - 1 - i];
  out[k] = '\r';
  out[k + 1] = '\n';
  return k + 2;
}
