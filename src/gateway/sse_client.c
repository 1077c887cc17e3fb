/* The gateway's graphql-sse client (see sse_client.h). */
#include "gateway/sse_client.h"

#include "json/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

/* An event's data is checked as JSON in the client's arena, reset per
 * event; deeper than this is refused (max_event bounds its size). */
#define SSEC_MAX_DEPTH 256

/* The event field's value (the last one of an event wins). */
enum { EV_NONE, EV_NEXT, EV_COMPLETE, EV_OTHER };

static void end(gql_gw_ssec *c, const char *why) {
  if (c->state == GQL_GW_SSEC_ENDED)
    return;
  c->state = GQL_GW_SSEC_ENDED;
  if (why && why != c->why)
    snprintf(c->why, sizeof c->why, "%s", why);
  c->h->end(c->ud, why ? c->why : NULL, NULL, 0);
}

/* ------------------------------------------------------------ events */

static void dispatch(gql_gw_ssec *c) {
  uint8_t ev = c->event;
  bool has_data = c->has_data;
  c->event = EV_NONE;
  c->has_data = false;
  if (ev == EV_NONE && !has_data)
    return; /* blank lines only */
  if (ev == EV_COMPLETE) {
    end(c, NULL);
    return;
  }
  if (ev != EV_NEXT) {
    end(c, "the subgraph sent an event that is not graphql-sse's next or "
           "complete");
    return;
  }
  gql_arena_reset(c->arena);
  gql_json_value *v = NULL;
  gql_json_options jo = {.max_depth = SSEC_MAX_DEPTH};
  int rc = has_data && c->data.len ? gql_json_parse(c->arena, c->data.data,
                                                    c->data.len, &jo, &v, NULL)
                                   : GQL_EINVAL; /* no data: not an object */
  if (rc == GQL_ENOMEM) {
    end(c, "out of memory");
    return;
  }
  if (rc || v->kind != GQL_JSON_OBJECT) {
    end(c, "the subgraph sent a next event whose data is not a JSON object");
    return;
  }
  c->h->event(c->ud, c->data.data, c->data.len);
  c->data.len = 0;
}

static bool field_is(const char *f, size_t n, const char *name) {
  return n == strlen(name) && memcmp(f, name, n) == 0;
}

/* One line of the stream (its end cut): a field, a comment, or the blank
 * line that dispatches the event. */
static void on_line(gql_gw_ssec *c, const char *l, size_t n) {
  if (!n) {
    dispatch(c);
    return;
  }
  if (l[0] == ':')
    return; /* a comment: the server's keep-alive */
  const char *colon = memchr(l, ':', n);
  size_t fn = colon ? (size_t)(colon - l) : n;
  const char *v = colon ? colon + 1 : l + n;
  size_t vn = (size_t)(l + n - v);
  if (vn && v[0] == ' ') {
    v++;
    vn--;
  }
  if (field_is(l, fn, "event")) {
    c->event = field_is(v, vn, "next")       ? EV_NEXT
               : field_is(v, vn, "complete") ? EV_COMPLETE
                                             : EV_OTHER;
  } else if (field_is(l, fn, "data")) {
    if (!c->has_data)
      c->data.len = 0;
    else
      gql_buf_putc(&c->data, '\n');
    gql_buf_append(&c->data, v, vn);
    c->has_data = true;
    if (c->data.failed)
      end(c, "out of memory");
    else if (c->data.len > c->max_event)
      end(c, "the subgraph sent an event over the size limit");
  } /* id, retry and unknown fields: ignored */
}

/* Body bytes of the event stream, any split. */
static void on_stream(gql_gw_ssec *c, const char *d, size_t n) {
  size_t i = 0;
  while (i < n && c->state == GQL_GW_SSEC_RUNNING) {
    if (c->cr && d[i] == '\n') { /* the LF of a CRLF */
      c->cr = false;
      i++;
      continue;
    }
    c->cr = false;
    size_t j = i;
    while (j < n && d[j] != '\n' && d[j] != '\r')
      j++;
    if (c->line.len + (j - i) > c->max_event) {
      end(c, "the subgraph sent an event line over the size limit");
      return;
    }
    if (j == n) { /* the line goes on in the next bytes */
      gql_buf_append(&c->line, d + i, j - i);
      if (c->line.failed)
        end(c, "out of memory");
      return;
    }
    c->cr = d[j] == '\r';
    if (c->line.len) { /* joined with its start from earlier bytes */
      gql_buf_append(&c->line, d + i, j - i);
      if (c->line.failed) {
        end(c, "out of memory");
        return;
      }
      size_t ln = c->line.len;
      c->line.len = 0; /* the bytes stay valid until the next append */
      on_line(c, c->line.data, ln);
    } else {
      on_line(c, d + i, j - i);
    }
    i = j + 1;
  }
}

/* ------------------------------------------------------------ HTTP */

static gql_gw_ssec *of(llhttp_t *p) {
  return p->data;
}

static int on_header_field(llhttp_t *p, const char *at, size_t n) {
  gql_gw_ssec *c = of(p);
  size_t room = sizeof c->hname - c->hname_len;
  if (n > room) {
    c->hname_len = sizeof c->hname; /* too long to be Content-Type */
    return 0;
  }
  memcpy(c->hname + c->hname_len, at, n);
  c->hname_len += n;
  return 0;
}

static int on_header_field_complete(llhttp_t *p) {
  gql_gw_ssec *c = of(p);
  c->header_is_ct =
      c->hname_len == 12 && strncasecmp(c->hname, "content-type", 12) == 0;
  c->hname_len = 0;
  if (c->header_is_ct)
    c->ctype_len = 0; /* the last one counts */
  return 0;
}

static int on_header_value(llhttp_t *p, const char *at, size_t n) {
  gql_gw_ssec *c = of(p);
  if (!c->header_is_ct)
    return 0;
  size_t room = sizeof c->ctype - 1 - c->ctype_len;
  size_t take = n < room ? n : room;
  memcpy(c->ctype + c->ctype_len, at, take);
  c->ctype_len += take;
  c->ctype[c->ctype_len] = 0;
  return 0;
}

/* text/event-stream, maybe with parameters (charset). */
static bool is_event_stream(const gql_gw_ssec *c) {
  static const char t[] = "text/event-stream";
  size_t n = sizeof t - 1;
  if (c->ctype_len < n || strncasecmp(c->ctype, t, n) != 0)
    return false;
  char after = c->ctype_len > n ? c->ctype[n] : 0;
  return after == 0 || after == ';' || after == ' ' || after == '\t';
}

static int on_headers_complete(llhttp_t *p) {
  gql_gw_ssec *c = of(p);
  c->status = p->status_code;
  if (c->state != GQL_GW_SSEC_REQUESTING)
    return -1;
  if (c->status >= 100 && c->status < 200)
    return 0; /* an interim answer: the real one follows */
  if (c->status == 200 && is_event_stream(c))
    c->state = GQL_GW_SSEC_RUNNING;
  else
    c->refused = true;
  return 0;
}

static int on_body(llhttp_t *p, const char *at, size_t n) {
  gql_gw_ssec *c = of(p);
  if (c->state == GQL_GW_SSEC_RUNNING) {
    on_stream(c, at, n);
  } else if (c->refused) {
    size_t room = GQL_GW_SSEC_ERROR_BODY_MAX - c->refusal.len;
    gql_buf_append(&c->refusal, at, n < room ? n : room);
  }
  return c->state == GQL_GW_SSEC_ENDED ? -1 : 0;
}

/* Why a response that is not the event stream ended it: its status (or
 * content type) and the first GraphQL error's message of a JSON body. */
static void refuse(gql_gw_ssec *c) {
  char m[sizeof c->why];
  int n;
  if (c->status == 200)
    n = snprintf(m, sizeof m,
                 "the subgraph answered with Content-Type %s, not "
                 "text/event-stream",
                 c->ctype_len ? c->ctype : "(none)");
  else
    n = snprintf(m, sizeof m, "the subgraph answered HTTP %d", c->status);
  gql_arena_reset(c->arena);
  gql_json_value *v = NULL;
  gql_json_options jo = {.max_depth = SSEC_MAX_DEPTH};
  if (c->refusal.len && !c->refusal.failed &&
      gql_json_parse(c->arena, c->refusal.data, c->refusal.len, &jo, &v,
                     NULL) == 0) {
    const gql_json_value *errs = gql_json_get(v, GQL_STR("errors"));
    const gql_json_value *first =
        errs && errs->kind == GQL_JSON_ARRAY && errs->array.count
            ? &errs->array.items[0]
            : NULL;
    const gql_json_value *msg =
        first ? gql_json_get(first, GQL_STR("message")) : NULL;
    if (msg && msg->kind == GQL_JSON_STRING && n > 0 && (size_t)n < sizeof m)
      snprintf(m + n, sizeof m - (size_t)n, ": %.*s",
               (int)(msg->string.len > 100 ? 100 : msg->string.len),
               msg->string.ptr);
  }
  end(c, m);
}

static int on_message_complete(llhttp_t *p) {
  gql_gw_ssec *c = of(p);
  bool interim = c->status >= 100 && c->status < 200;
  if (interim && c->state == GQL_GW_SSEC_REQUESTING)
    return 0; /* the real answer follows */
  if (c->refused)
    refuse(c);
  else
    end(c, NULL);    /* the stream's end: the subscription is complete */
  return HPE_PAUSED; /* one response: anything after it is not ours */
}

/* ------------------------------------------------------------ the API */

int gql_gw_ssec_init(gql_gw_ssec *c, const gql_gw_ssec_handler *h, void *ud,
                     const char *host, const char *path, const char *headers,
                     const char *payload, size_t len, size_t max_event) {
  memset(c, 0, sizeof *c);
  c->h = h;
  c->ud = ud;
  c->max_event = max_event ? max_event : GQL_GW_SSEC_MAX_EVENT_DEFAULT;
  gql_buf_init(&c->line, NULL);
  gql_buf_init(&c->data, NULL);
  gql_buf_init(&c->refusal, NULL);
  c->arena = gql_arena_new(NULL);
  if (!c->arena) {
    gql_gw_ssec_free(c);
    return GQL_ENOMEM;
  }
  llhttp_settings_init(&c->settings);
  c->settings.on_header_field = on_header_field;
  c->settings.on_header_field_complete = on_header_field_complete;
  c->settings.on_header_value = on_header_value;
  c->settings.on_headers_complete = on_headers_complete;
  c->settings.on_body = on_body;
  c->settings.on_message_complete = on_message_complete;
  llhttp_init(&c->parser, HTTP_RESPONSE, &c->settings);
  c->parser.data = c;
  http_buf *o = &c->out;
  http_buf_puts(o, "POST ");
  http_buf_puts(o, path);
  http_buf_puts(o, " HTTP/1.1\r\nHost: ");
  http_buf_puts(o, host);
  http_buf_printf(o,
                  "\r\nAccept: text/event-stream\r\nContent-Type: "
                  "application/json\r\nContent-Length: %zu\r\n",
                  len);
  if (headers)
    http_buf_puts(o, headers);
  http_buf_puts(o, "\r\n");
  http_buf_append(o, payload, len);
  c->state = GQL_GW_SSEC_REQUESTING;
  if (c->out.failed) {
    gql_gw_ssec_free(c);
    return GQL_ENOMEM;
  }
  return 0;
}

void gql_gw_ssec_free(gql_gw_ssec *c) {
  http_buf_free(&c->out);
  gql_buf_free(&c->line);
  gql_buf_free(&c->data);
  gql_buf_free(&c->refusal);
  gql_arena_free(c->arena);
  c->arena = NULL;
  c->h = NULL;
}

gql_gw_ssec_state gql_gw_ssec_feed(gql_gw_ssec *c, const char *d, size_t len) {
  if (c->state == GQL_GW_SSEC_ENDED || !len)
    return (gql_gw_ssec_state)c->state;
  llhttp_errno_t e = llhttp_execute(&c->parser, d, len);
  if (e != HPE_OK && c->state != GQL_GW_SSEC_ENDED) {
    char m[sizeof c->why];
    snprintf(m, sizeof m, "the subgraph's response is not valid HTTP (%s)",
             llhttp_errno_name(e));
    end(c, m);
  }
  return (gql_gw_ssec_state)c->state;
}

void gql_gw_ssec_eof(gql_gw_ssec *c) {
  if (c->state == GQL_GW_SSEC_ENDED)
    return;
  if (c->refused) /* a refusal whose body ends with the connection */
    refuse(c);
  else
    end(c, c->state == GQL_GW_SSEC_RUNNING
               ? "the subgraph closed the connection before the stream's end"
               : "the subgraph closed the connection");
}

void gql_gw_ssec_complete(gql_gw_ssec *c) {
  c->state = GQL_GW_SSEC_ENDED;
}

void gql_gw_ssec_fail(gql_gw_ssec *c, const char *why) {
  end(c, why);
}
