/* A response's bytes: the status line and head assembled with memcpy (no
 * printf on the hot path), then the body, appended to the connection's
 * output. */
#include "http.h"

static const char *status_text(int status) {
  switch (status) {
  case 100:
    return "Continue";
  case 200:
    return "OK";
  case 201:
    return "Created";
  case 202:
    return "Accepted";
  case 204:
    return "No Content";
  case 304:
    return "Not Modified";
  case 400:
    return "Bad Request";
  case 401:
    return "Unauthorized";
  case 403:
    return "Forbidden";
  case 404:
    return "Not Found";
  case 405:
    return "Method Not Allowed";
  case 406:
    return "Not Acceptable";
  case 408:
    return "Request Timeout";
  case 409:
    return "Conflict";
  case 413:
    return "Content Too Large";
  case 414:
    return "URI Too Long";
  case 415:
    return "Unsupported Media Type";
  case 417:
    return "Expectation Failed";
  case 429:
    return "Too Many Requests";
  case 431:
    return "Request Header Fields Too Large";
  case 500:
    return "Internal Server Error";
  case 503:
    return "Service Unavailable";
  default:
    return "Unknown";
  }
}

static char *put(char *p, const char *s, size_t n) {
  memcpy(p, s, n);
  return p + n;
}

#define PUT_LIT(p, lit) put((p), (lit), sizeof(lit) - 1)

/* The head is assembled with memcpy (no printf on the hot path). */
void gql_http_respond(gql_http_conn *c, int status, const char *ctype,
                      const char *headers, const char *body, size_t len,
                      bool head_only) {
  if (c->x->stopping)
    c->close_after = true;
  const char *text = status_text(status);
  size_t ctl = ctype ? strlen(ctype) : 0, hl = headers ? strlen(headers) : 0;
  size_t tl = strlen(text);
  http_buf *o = &c->out;
  if (!http_buf_reserve(o, 128 + tl + ctl + hl + len))
    return;
  char *p = o->o.data + o->o.len;
  p = PUT_LIT(p, "HTTP/1.1 ");
  *p++ = (char)('0' + status / 100 % 10);
  *p++ = (char)('0' + status / 10 % 10);
  *p++ = (char)('0' + status % 10);
  *p++ = ' ';
  p = put(p, text, tl);
  p = PUT_LIT(p, "\r\n");
  if (ctype) {
    p = PUT_LIT(p, "Content-Type: ");
    p = put(p, ctype, ctl);
    p = PUT_LIT(p, "\r\n");
  }
  /* 204 and 304 have neither a body nor a Content-Length (RFC 9110 8.6) */
  bool bodiless = status == 204 || status == 304;
  if (bodiless)
    len = 0;
  if (!head_only && !bodiless) {
    p = PUT_LIT(p, "Content-Length: ");
    char digits[24];
    int nd = 0;
    size_t v = len;
    do {
      digits[nd++] = (char)('0' + v % 10);
      v /= 10;
    } while (v);
    while (nd)
      *p++ = digits[--nd];
    p = PUT_LIT(p, "\r\n");
  }
  if (headers)
    p = put(p, headers, hl);
  if (c->close_after)
    p = PUT_LIT(p, "Connection: close\r\n");
  else if (c->parser.http_major == 1 && c->parser.http_minor == 0)
    p = PUT_LIT(p, "Connection: keep-alive\r\n"); /* HTTP/1.0 asked */
  p = PUT_LIT(p, "\r\n");
  if (len && !head_only)
    p = put(p, body, len);
  o->o.len = (size_t)(p - o->o.data);
}
