/* GraphQL over HTTP: what a complete request means. Follows the
 * GraphQL-over-HTTP spec (graphql-http's audits): POST application/json or
 * GET with URL parameters; the response media type negotiated between
 * application/graphql-response+json and application/json, which decides the
 * status of a request that fails before execution (400 with the former, 200
 * with the latter). */
#include "http.h"
#include "incremental.h"
#include "sse_single.h"

#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

/* A subscription over plain HTTP or multipart to an executor. */
static const char sub_refusal[] =
    "{\"errors\":[{\"message\":\"Subscriptions are served over WebSocket "
    "(graphql-transport-ws) or server-sent events (Accept: "
    "text/event-stream).\"}]}";

/* A copy of s[0..n), NUL-terminated, in the arena (NULL: out of memory). */
static char *arena_strndup(gql_arena *a, const char *s, size_t n) {
  char *d = gql_arena_alloc(a, n + 1);
  if (d) {
    if (n)
      memcpy(d, s, n);
    d[n] = 0;
  }
  return d;
}

#define CT_GQL_RESPONSE "application/graphql-response+json; charset=utf-8"
#define CT_JSON "application/json; charset=utf-8"

/* ------------------------------------------------------------ responses */

static const char *content_type(const gql_http_request *r) {
  return r->graphql_response ? CT_GQL_RESPONSE : CT_JSON;
}

/* The status of a request error (an operation that does not parse or
 * validate, or is refused before it runs): 400 with graphql-response+json,
 * 200 with application/json, as graphql-http says; 400 for an operation
 * posted to a graphql-sse reservation, whatever it accepts, as graphql-sse's
 * handler answers (a 200 there reads as a success to a client other than
 * graphql-sse's, which takes anything but 202 for a failure). */
static int request_error_status(const gql_http_request *r) {
  return r->graphql_response || r->sse_route ? 400 : 200;
}

static void finish(gql_http_request *r, int status, const char *ctype,
                   const char *headers, const char *body, size_t len) {
  gql_http_request_finish(r, status, ctype, headers, body, len);
}

/* A JSON string of s (quotes, escapes). */
static void json_string(http_buf *b, const char *s) {
  http_buf_putc(b, '"');
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\') {
      http_buf_putc(b, '\\');
      http_buf_putc(b, (char)*p);
    } else if (*p < 0x20) {
      char esc[8];
      snprintf(esc, sizeof esc, "\\u%04x", *p);
      http_buf_puts(b, esc);
    } else {
      http_buf_putc(b, (char)*p);
    }
  }
  http_buf_putc(b, '"');
}

/* A request error (not a GraphQL response): {"errors":[{message}]}. */
static void fail(gql_http_request *r, int status, const char *headers,
                 const char *message) {
  http_buf b = {0};
  http_buf_puts(&b, "{\"errors\":[{\"message\":\"");
  for (const char *p = message; *p; p++) {
    if (*p == '"' || *p == '\\')
      http_buf_putc(&b, '\\');
    http_buf_putc(&b, *p);
  }
  http_buf_puts(&b, "\"}]}");
  r->errors = true;
  finish(r, status, content_type(r), headers, b.o.data ? b.o.data : "",
         b.failed ? 0 : b.o.len);
  http_buf_free(&b);
}

void gql_http_request_end(gql_http_request *r) {
  gql_http_ctx *x = r->conn->x;
  /* The response is written: queue the request's spans (a pending
   * execution queued its own at its finish) and give the trace back. */
  gql_trace_end(r->trace);
  r->trace = NULL;
  if (r->stream)
    gql_http_stream_release(r);
  gql_http_cache_release(r->entry);
  r->entry = NULL;
  gql_http_pin_release(r->pin); /* after the entry: the pin owns its cache */
  r->pin = NULL;
  if (r->slot)
    gql_http_slot_give(x, r->slot);
}

void gql_http_exec_done(gql_http_exec *req, const char *json, size_t len) {
  gql_http_exec_done_errors(req, json, len, true); /* errors: not known */
}

void gql_http_exec_done_errors(gql_http_exec *req, const char *json, size_t len,
                               bool has_errors) {
  gql_http_request *r = req->internal_;
  if (r && r->ws_exec) { /* a WebSocket operation's (ws_exec.c) */
    gql_http_ws_exec_payload(r, json, len, false);
    return;
  }
  if (r && r->sse_op) { /* a graphql-sse operation's (sse_single.c) */
    gql_http_sse_exec_payload(r, json, len, false);
    return;
  }
  if (!r || r->done)
    return;
  if (r->stream) { /* after payloads: the last one */
    gql_http_exec_payload(req, json, len, false);
    return;
  }
  gql_http_request_done(r, json, len, has_errors);
}

/* ------------------------------------------------------------- decoding */

static int hexval(char ch) {
  if (ch >= '0' && ch <= '9')
    return ch - '0';
  if (ch >= 'a' && ch <= 'f')
    return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F')
    return ch - 'A' + 10;
  return -1;
}

/* application/x-www-form-urlencoded → bytes (NUL-terminated, in arena). */
static char *url_decode(gql_arena *a, const char *s, size_t n, size_t *out) {
  char *d = gql_arena_alloc(a, n + 1);
  if (!d)
    return NULL;
  size_t j = 0;
  for (size_t i = 0; i < n; i++) {
    int hi, lo;
    if (s[i] == '+') {
      d[j++] = ' ';
    } else if (s[i] == '%' && i + 2 < n && (hi = hexval(s[i + 1])) >= 0 &&
               (lo = hexval(s[i + 2])) >= 0) {
      d[j++] = (char)(hi * 16 + lo);
      i += 2;
    } else {
      d[j++] = s[i];
    }
  }
  d[j] = 0;
  *out = j;
  return d;
}

typedef struct params {
  gql_str query, op, variables, extensions, document_id;
  bool has_query, has_op, has_variables, has_extensions, has_document_id;
  bool is_get;
  const gql_value *vars_value; /* POST: the object itself */
  const gql_value *ext_value;  /* the extensions object, or NULL */
} params;

static bool get_params(gql_arena *a, gql_str qs, params *p) {
  size_t i = 0;
  while (i < qs.len) {
    size_t amp = i;
    while (amp < qs.len && qs.ptr[amp] != '&')
      amp++;
    size_t eq = i;
    while (eq < amp && qs.ptr[eq] != '=')
      eq++;
    size_t klen, vlen;
    char *k = url_decode(a, qs.ptr + i, eq - i, &klen);
    char *v = eq < amp ? url_decode(a, qs.ptr + eq + 1, amp - eq - 1, &vlen)
                       : url_decode(a, "", 0, &vlen);
    if (!k || !v)
      return false;
    gql_str val = {v, vlen};
    if (strcmp(k, "query") == 0) {
      p->query = val;
      p->has_query = true;
    } else if (strcmp(k, "operationName") == 0) {
      p->op = val;
      p->has_op = vlen > 0;
    } else if (strcmp(k, "variables") == 0) {
      p->variables = val;
      p->has_variables = vlen > 0;
    } else if (strcmp(k, "extensions") == 0) {
      p->extensions = val;
      p->has_extensions = vlen > 0;
    } else if (strcmp(k, "documentId") == 0) {
      p->document_id = val;
      p->has_document_id = true;
    }
    i = amp + 1;
  }
  return true;
}

/* The charset parameter of a Content-Type, when not utf-8. */
static bool charset_ok(gql_str v) {
  for (size_t i = 0; i + 8 <= v.len; i++) {
    if (strncasecmp(v.ptr + i, "charset=", 8) == 0) {
      gql_str cs = {v.ptr + i + 8, v.len - i - 8};
      size_t n = 0;
      while (n < cs.len && cs.ptr[n] != ';' && cs.ptr[n] != ' ')
        n++;
      if (n >= 2 && cs.ptr[0] == '"' && cs.ptr[n - 1] == '"') {
        cs.ptr++;
        n -= 2;
      }
      return (n == 5 && strncasecmp(cs.ptr, "utf-8", 5) == 0) ||
             (n == 4 && strncasecmp(cs.ptr, "utf8", 4) == 0);
    }
  }
  return true;
}

/* Accept negotiation: 1 graphql-response+json, 0 application/json, -1 none
 * acceptable. No Accept header means application/json (the spec's legacy
 * clients). The first acceptable media range in the list wins. */
static int negotiate(gql_str accept) {
  if (!accept.len)
    return 0;
  gql_str item;
  for (size_t i = 0; http_list_next(accept, &i, &item);) {
    if (http_accept_refused(item))
      continue;
    if (http_media_is(item, "application/graphql-response+json"))
      return 1;
    if (http_media_is(item, "application/json") ||
        http_media_is(item, "application/*") || http_media_is(item, "*/*"))
      return 0;
  }
  return -1;
}

/* ------------------------------------------------------------- handling */

static const gql_value *member(const gql_value *obj, const char *name) {
  return gql_value_get(obj, name, strlen(name));
}

/* POST body → params. 0, or an HTTP status with *msg. */
static int post_params(gql_http_request *r, gql_str ctype, gql_str body,
                       params *p, const char **msg) {
  if (!ctype.len) {
    *msg = "Missing Content-Type header.";
    return 415;
  }
  if (!http_media_is(ctype, "application/json") &&
      !http_media_is(ctype, "application/graphql-response+json")) {
    *msg = "Unsupported Content-Type: use application/json.";
    return 415;
  }
  if (!charset_ok(ctype)) {
    *msg = "Unsupported charset: use utf-8.";
    return 415;
  }
  gql_arena *a = r->slot->arena;
  char *copy = arena_strndup(a, body.ptr ? body.ptr : "", body.len);
  if (!copy) {
    *msg = "Out of memory.";
    return 503;
  }
  const gql_value *v;
  if (body.len == 0) {
    *msg = "Missing request body.";
    return 400;
  }
  int rc = gql_value_parse(a, copy, body.len, &v);
  if (rc < 0) {
    *msg =
        rc == GQL_ENOMEM ? "Out of memory." : "Request body is not valid JSON.";
    return rc == GQL_ENOMEM ? 503 : 400;
  }
  if (gql_value_kind_of(v) != GQL_VALUE_OBJECT) {
    *msg = "Request body must be a JSON object.";
    return 400;
  }
  r->body = v;
  const gql_value *q = member(v, "query"), *op = member(v, "operationName"),
                  *vars = member(v, "variables"),
                  *ext = member(v, "extensions");
  if (q) {
    if (gql_value_kind_of(q) != GQL_VALUE_STRING) {
      *msg = "The query parameter must be a string.";
      return 400;
    }
    p->query = gql_value_string(q);
    p->has_query = true;
  }
  if (op && gql_value_kind_of(op) != GQL_VALUE_NULL) {
    if (gql_value_kind_of(op) != GQL_VALUE_STRING) {
      *msg = "The operationName parameter must be a string.";
      return 400;
    }
    p->op = gql_value_string(op);
    p->has_op = true;
  }
  if (vars && gql_value_kind_of(vars) != GQL_VALUE_NULL) {
    if (gql_value_kind_of(vars) != GQL_VALUE_OBJECT) {
      *msg = "The variables parameter must be an object.";
      return 400;
    }
    p->vars_value = vars;
  }
  if (ext && gql_value_kind_of(ext) != GQL_VALUE_NULL &&
      gql_value_kind_of(ext) != GQL_VALUE_OBJECT) {
    *msg = "The extensions parameter must be an object.";
    return 400;
  }
  if (r->conn->x->opt->documents) { /* read only for persisted operations */
    p->ext_value = gql_value_kind_of(ext) == GQL_VALUE_OBJECT ? ext : NULL;
    const gql_value *id = member(v, "documentId");
    if (id && gql_value_kind_of(id) != GQL_VALUE_NULL) {
      if (gql_value_kind_of(id) != GQL_VALUE_STRING) {
        *msg = "The documentId parameter must be a string.";
        return 400;
      }
      p->document_id = gql_value_string(id);
      p->has_document_id = true;
    }
  }
  return 0;
}

/* GET variables / extensions: JSON text that must be an object. */
static int get_json_params(gql_http_request *r, params *p, const char **msg) {
  gql_arena *a = r->slot->arena;
  if (p->has_variables) {
    const gql_value *v;
    if (gql_value_parse(a, p->variables.ptr, p->variables.len, &v) < 0 ||
        (gql_value_kind_of(v) != GQL_VALUE_OBJECT &&
         gql_value_kind_of(v) != GQL_VALUE_NULL)) {
      *msg = "The variables parameter must be a JSON object.";
      return 400;
    }
    p->vars_value = gql_value_kind_of(v) == GQL_VALUE_NULL ? NULL : v;
  }
  if (p->has_extensions) {
    const gql_value *v;
    if (gql_value_parse(a, p->extensions.ptr, p->extensions.len, &v) < 0 ||
        (gql_value_kind_of(v) != GQL_VALUE_OBJECT &&
         gql_value_kind_of(v) != GQL_VALUE_NULL)) {
      *msg = "The extensions parameter must be a JSON object.";
      return 400;
    }
    p->ext_value = gql_value_kind_of(v) == GQL_VALUE_OBJECT ? v : NULL;
  }
  return 0;
}

/* The operation for the trace, with the caller's raw variables as JSON
 * when variables are tagged (GET: the parameter's text; POST: the object,
 * written back out). */
static void trace_operation(gql_http_request *r, const gql_prepared *prep,
                            const params *p) {
  const gql_trace_options *to = r->conn->x->opt->trace_options;
  gql_str vars = {0};
  if (to && to->nvariables && p->vars_value) {
    if (p->has_variables)
      vars = p->variables;
    else if (gql_value_print(r->slot->arena, p->vars_value, &vars) < 0)
      vars = (gql_str){0};
  }
  gql_trace_set_operation(r->trace, prep, vars.ptr, vars.len);
}

/* A traceparent (and tracestate) from the client: the request's trace
 * continues the caller's (a bad traceparent starts a new trace and drops
 * tracestate, as W3C Trace Context says). */
static void continue_trace(gql_http_request *r) {
  gql_http_conn *c = r->conn;
  if (!c->traceparent.o.len || c->traceparent.failed)
    return;
  gql_trace_context tc;
  if (gql_traceparent_parse(c->traceparent.o.data, c->traceparent.o.len, &tc) <
      0)
    return;
  tc.tracestate_len = 0;
  if (c->tracestate.o.len && !c->tracestate.failed)
    (void)gql_tracestate_parse(c->tracestate.o.data, c->tracestate.o.len, &tc);
  gql_trace_set_parent(r->trace, &tc);
}

/* A request error with a code, in the status its media type calls for. */
static void refuse_operation(gql_http_request *r, const char *message,
                             const char *code) {
  http_buf b = {0};
  r->errors = true;
  http_buf_puts(&b, "{\"errors\":[{\"message\":");
  json_string(&b, message);
  http_buf_puts(&b, ",\"extensions\":{\"code\":");
  json_string(&b, code);
  http_buf_puts(&b, "}}]}");
  if (b.failed)
    fail(r, 503, NULL, "Out of memory.");
  else
    finish(r, request_error_status(r), content_type(r), NULL, b.o.data,
           b.o.len);
  http_buf_free(&b);
}

static void run_params(gql_http_request *r, params *p);
static void run_document(gql_http_request *r, void *ud, int action);

static void handle_graphql(gql_http_request *r, bool is_get, gql_str qs) {
  gql_http_conn *c = r->conn;
  gql_http_ctx *x = c->x;
  int accept = negotiate(http_str(c->accept.o.data, c->accept.o.len));
  if (accept < 0) { /* multipart/mixed or text/event-stream only? */
    gql_http_stream_negotiate_request(r);
    if (r->stream_fmt == GQL_HTTP_STREAM_NONE) {
      fail(r, 406, NULL,
           "Not acceptable: use application/graphql-response+json or "
           "application/json.");
      return;
    }
    r->stream_only = true;
    accept = 0;
  }
  r->graphql_response = accept == 1;
  params p = {0};
  const char *msg = NULL;
  int status;
  if (is_get) {
    status = get_params(r->slot->arena, qs, &p) ? 0 : 503;
    msg = "Out of memory.";
    if (!status)
      status = get_json_params(r, &p, &msg);
  } else {
    status = post_params(
        r,
        c->ctype_len ? http_str(c->hdrs.o.data + c->ctype_off, c->ctype_len)
                     : (gql_str){"", 0},
        http_str(c->body.o.data, c->body.o.len), &p, &msg);
  }
  if (status) {
    fail(r, status, NULL, msg);
    return;
  }
  p.is_get = is_get;
  if (x->opt->documents) { /* persisted operations: decided before parse */
    gql_http_stream_negotiate_request(r); /* the decision may come later */
    params *pp = gql_arena_alloc(r->slot->arena, sizeof *pp);
    gql_http_document *d = gql_arena_alloc(r->slot->arena, sizeof *d);
    if (!pp || !d) {
      fail(r, 503, NULL, "Out of memory.");
      return;
    }
    *pp = p;
    *d = (gql_http_document){.has_query = p.has_query,
                             .query = p.query,
                             .has_document_id = p.has_document_id,
                             .document_id = p.document_id,
                             .extensions = p.ext_value};
    gql_http_document_decide(r, d, run_document, pp);
    return;
  }
  run_params(r, &p);
}

/* A decided document: the request goes on with its query, or is answered
 * with the decision's error (Router's statuses whatever the media type). */
static void run_document(gql_http_request *r, void *ud, int action) {
  params *p = ud;
  gql_http_document *d = r->doc;
  if (action != GQL_HTTP_DOC_RUN) {
    if (!d->body)
      fail(r, 503, NULL, "Out of memory.");
    else
      finish(r, d->status ? d->status : 400, content_type(r),
             d->no_cache ? "Cache-Control: private, no-cache, "
                           "must-revalidate\r\n"
                         : NULL,
             d->body, d->body_len);
    return;
  }
  p->query = r->doc->query;
  p->has_query = r->doc->has_query;
  run_params(r, p);
}

/* The request's parameters read: parse (or find), validate and run. */
static void run_params(gql_http_request *r, params *p) {
  gql_http_conn *c = r->conn;
  gql_http_ctx *x = c->x;
  bool is_get = p->is_get;
  if (!p->has_query) {
    fail(r, 400, NULL, "Missing query.");
    return;
  }
  if (p->has_op)
    r->op_name = p->op;
  const gql_http_hooks *hooks = x->opt->hooks;
  if (hooks && hooks->execute) {
    hooks->execute(x->hook_worker, r);
    if (r->answered)
      return;
  }
  const char *op = NULL;
  if (p->has_op &&
      !(op = arena_strndup(r->slot->arena, p->op.ptr, p->op.len))) {
    fail(r, 503, NULL, "Out of memory.");
    return;
  }
  if (x->opt->tracer &&
      (r->trace = gql_trace_begin(x->opt->tracer, x->opt->trace_options)))
    continue_trace(r);
  gql_http_pin *pin = r->pin;
  gql_http_cache_entry *e =
      gql_http_cache_get(&pin->cache, p->query, op, p->op.len);
  r->cache = e != NULL;
  if (!e) {
    gql_prepare_options po = {.parse = x->opt->parse,
                              .max_plan_size = x->opt->max_plan_size,
                              .trace = r->trace};
    gql_prepared *prep = NULL;
    gql_errors errors = {.arena = r->slot->arena};
    int rc = gql_prepare(pin->gen->g.schema, p->query.ptr, p->query.len, op,
                         &po, &prep, &errors);
    const char *code = !x->opt->error_codes ? NULL
                       : rc == GQL_ESYNTAX  ? "GRAPHQL_PARSE_FAILED"
                       : rc == GQL_EVALIDATION
                           ? "GRAPHQL_VALIDATION_FAILED"
                           : "GRAPHQL_UNKNOWN_OPERATION_NAME";
    gql_str json;
    if (rc < 0) {
      r->errors = true;
      if (errors.count &&
          gql_errors_response(&errors, code, r->slot->arena, &json) == 0) {
        int st = request_error_status(r);
        finish(r, st, content_type(r), NULL, json.ptr, json.len);
      } else {
        fail(r, rc == GQL_ENOMEM ? 503 : 400, NULL, gql_strerror(rc));
      }
      return;
    }
    if (!(e = gql_http_cache_put(&pin->cache, p->query, op, p->op.len, prep))) {
      fail(r, 503, NULL, "Out of memory.");
      return;
    }
    gql_http_judge_limits(&pin->gen->g, e);
  }
  r->entry = e;
  if (r->doc)
    gql_http_document_validated(r);
  if (e->refusal) { /* over an operation limit: a request error */
    refuse_operation(r, e->refusal, e->refusal_code);
    return;
  }
  if (x->opt->admission) { /* demand control */
    size_t len = 0;
    const char *no = x->opt->admission->admit(x->opt->admission->ud, r,
                                              e->prepared, p->vars_value, &len);
    if (no) {
      finish(r, request_error_status(r), content_type(r), NULL, no, len);
      return;
    }
  }
  if (is_get && gql_prepared_operation(e->prepared) != GQL_OP_QUERY) {
    fail(r, 405, "Allow: POST\r\n",
         "Only query operations are allowed over GET: use POST.");
    return;
  }
  r->op_type = (int8_t)gql_prepared_operation(e->prepared);
  if (r->sse_route) { /* for a graphql-sse reservation: its stream's */
    gql_http_sse_execute(r, p->query, op, p->vars_value, p->ext_value);
    return;
  }
  if (x->opt->executor) {
    gql_http_stream_negotiate_request(r); /* gql_http_exec_streams */
    if (r->op_type == GQL_OP_SUBSCRIPTION &&
        !(r->stream_only && r->stream_fmt == GQL_HTTP_STREAM_SSE)) {
      /* an executor gets subscriptions over a transport of events only
       * (WebSocket, graphql-sse): not as a multipart or plain response */
      finish(r, r->graphql_response ? 400 : 200, content_type(r), NULL,
             sub_refusal, sizeof sub_refusal - 1);
      return;
    }
    r->exec = (gql_http_exec){.arena = r->slot->arena,
                              .loop = x->loop,
                              .query = p->query,
                              .operation_name = op,
                              .variables = p->vars_value,
                              .prepared = e->prepared,
                              .trace = r->trace,
                              .internal_ = r,
                              .request = r,
                              .generation = pin->gen->g.ud};
    if (r->op_type == GQL_OP_SUBSCRIPTION) {
      if (!gql_http_stream_admit(r))
        return;
      gql_http_stream_observe(r); /* gql_subscriptions_open */
    }
    int rc = x->opt->executor->execute(x->exec_worker, &r->exec);
    if (rc < 0 && !r->done) {
      fail(r, 500, NULL, gql_strerror(rc));
      return;
    }
    if (!r->done)
      c->inflight = r; /* gql_http_exec_done comes later, from the loop */
    return;
  }
  if (r->trace)
    trace_operation(r, e->prepared, p);
  gql_execute_params ep = {.variables = p->vars_value,
                           .root_value = pin->gen->g.root_value,
                           .context = r,
                           .arena = r->slot->arena,
                           .output = &r->slot->output,
                           .trace = r->trace,
                           .on_done = gql_http_request_done,
                           .ud = r};
  /* @defer, @stream, a client accepting only streams (a subscription
   * over text/event-stream): stream.c */
  int rc = __builtin_expect(
               r->stream_only || gql_prepared_incremental(e->prepared), 0)
               ? gql_http_stream_execute(r, e->prepared, &ep)
               : gql_execute(e->prepared, &ep);
  if (rc < 0) {
    if (!r->done)
      fail(r, 500, NULL, gql_strerror(rc));
    return;
  }
  if (!r->done)
    c->inflight = r; /* pending fields: on_done comes later, from the loop */
}

/* GET /metrics with a tracer: its counters in Prometheus' text format. */
static void trace_metrics(gql_http_request *r) {
  gql_tracer_stats st;
  gql_tracer_stats_get(r->conn->x->opt->tracer, &st);
  char body[1024];
  int n = snprintf(
      body, sizeof body,
      "# HELP gql_trace_spans_queued_total Spans accepted into the queue.\n"
      "# TYPE gql_trace_spans_queued_total counter\n"
      "gql_trace_spans_queued_total %llu\n"
      "# HELP gql_trace_spans_exported_total Spans the collector took.\n"
      "# TYPE gql_trace_spans_exported_total counter\n"
      "gql_trace_spans_exported_total %llu\n"
      "# HELP gql_trace_spans_dropped_total Spans dropped: queue full.\n"
      "# TYPE gql_trace_spans_dropped_total counter\n"
      "gql_trace_spans_dropped_total %llu\n"
      "# HELP gql_trace_spans_failed_total Spans of batches that failed.\n"
      "# TYPE gql_trace_spans_failed_total counter\n"
      "gql_trace_spans_failed_total %llu\n"
      "# HELP gql_trace_spans_pending Spans queued or being sent.\n"
      "# TYPE gql_trace_spans_pending gauge\n"
      "gql_trace_spans_pending %llu\n",
      (unsigned long long)st.queued, (unsigned long long)st.exported,
      (unsigned long long)st.dropped, (unsigned long long)st.failed,
      (unsigned long long)st.pending);
  finish(r, 200, "text/plain; version=0.0.4; charset=utf-8", NULL, body,
         n > 0 && (size_t)n < sizeof body ? (size_t)n : 0);
}

/* GET the observer's metrics page. */
static void observer_metrics(gql_http_request *r) {
  const gql_http_observer *ob = r->conn->x->opt->observer;
  gql_output out = {0};
  const char *ctype = ob->metrics ? ob->metrics(ob->ud, &out) : NULL;
  if (ctype)
    finish(r, 200, ctype, NULL, out.data ? out.data : "", out.len);
  else
    fail(r, 503, NULL, "Metrics unavailable.");
  gql_output_free(&out);
}

void gql_http_handle(gql_http_conn *c) {
  gql_http_ctx *x = c->x;
  const gql_http_page *page;
  gql_http_slot *slot = gql_http_slot_take(x);
  gql_http_request local = {
      .conn = c, .start_ns = c->start_ns, .op_type = -1, .cache = -1};
  gql_http_request *r = slot ? gql_arena_alloc(slot->arena, sizeof *r) : NULL;
  if (!r) {
    if (slot)
      gql_http_slot_give(x, slot);
    local.method = llhttp_method_name(c->parser.method);
    c->close_after = true;
    fail(&local, 503, NULL, "Out of memory.");
    return;
  }
  gql_http_gen_poll(x); /* between requests: a new generation? */
  *r = (gql_http_request){.conn = c,
                          .slot = slot,
                          .pin = x->pin,
                          .start_ns = c->start_ns,
                          .op_type = -1,
                          .cache = -1};
  x->pin->refs++;
  r->method = llhttp_method_name(c->parser.method);
  uint8_t m = c->parser.method;
  /* HEAD: the head of what GET would get (RFC 9110 9.3.2) */
  r->head = m == HTTP_HEAD;
  if (c->url.failed || c->body.failed || c->accept.failed || c->hdrs.failed ||
      c->hidx.failed) {
    c->close_after = true;
    fail(r, 503, NULL, "Out of memory.");
    gql_http_request_end(r);
    return;
  }
  gql_str url = http_str(c->url.o.data ? c->url.o.data : "", c->url.o.len);
  size_t qpos = 0;
  while (qpos < url.len && url.ptr[qpos] != '?')
    qpos++;
  r->path = http_str(url.ptr, qpos);
  gql_str qs = qpos < url.len ? http_str(url.ptr + qpos + 1, url.len - qpos - 1)
                              : (gql_str){"", 0};
  bool is_get = m == HTTP_GET || m == HTTP_HEAD;
  const gql_http_hooks *hooks = x->opt->hooks;
  if (hooks && hooks->request)
    hooks->request(x->hook_worker, r);
  const gql_http_observer *ob = x->opt->observer;
  if (r->answered) {
    /* the request hook answered it (a CORS preflight) */
  } else if (ob && ob->metrics_path && http_str_is(r->path, ob->metrics_path)) {
    if (!is_get)
      fail(r, 405, "Allow: GET, HEAD\r\n", "Method not allowed.");
    else
      observer_metrics(r);
  } else if (!ob && x->opt->tracer && http_str_is(r->path, "/metrics")) {
    if (!is_get)
      fail(r, 405, "Allow: GET, HEAD\r\n", "Method not allowed.");
    else
      trace_metrics(r);
  } else if (http_str_is(r->path, "/ready")) {
    /* readiness: the observer's say (a gateway's subgraphs answered) */
    bool ready = !ob || !ob->ready || ob->ready(ob->ud);
    if (!is_get)
      fail(r, 405, "Allow: GET, HEAD\r\n", "Method not allowed.");
    else if (ready)
      finish(r, 200, CT_JSON, NULL, "{\"status\":\"ready\"}", 18);
    else
      finish(r, 503, CT_JSON, "Retry-After: 1\r\n",
             "{\"status\":\"not ready\"}", 22);
  } else if (x->opt->npages && (page = gql_http_page_for(r, is_get))) {
    if (!is_get) /* GraphiQL's assets */
      fail(r, 405, "Allow: GET, HEAD\r\n", "Method not allowed.");
    else /* the endpoint's page: the same URL answers JSON to others */
      finish(r, 200, page->content_type, page->path ? NULL : "Vary: Accept\r\n",
             page->body, page->len);
  } else if (http_str_is(r->path, "/health")) {
    if (!is_get)
      fail(r, 405, "Allow: GET, HEAD\r\n", "Method not allowed.");
    else
      finish(r, 200, CT_JSON, NULL, "{\"status\":\"ok\"}", 15);
  } else if (!http_str_is(r->path, x->opt->path)) {
    fail(r, 404, NULL, "Not found.");
  } else if (x->sse && gql_http_sse_route(r)) {
    /* graphql-sse's single connection mode: answered, or the stream */
  } else if (c->upgrade && m == HTTP_GET && gql_http_ws_upgrade(r)) {
    /* a WebSocket's handshake, answered */
  } else if (!is_get && m != HTTP_POST) {
    fail(r, 405, "Allow: GET, HEAD, POST\r\n", "Method not allowed.");
  } else {
    handle_graphql(r, is_get, qs);
  }
  if (c->inflight != r)
    gql_http_request_end(r);
}

/* ------------------------------------------------- for C resolvers */

uv_loop_t *gql_http_loop(const gql_resolve_info *info) {
  gql_http_request *r = gql_info_context(info);
  return r ? r->conn->x->loop : NULL;
}

void *gql_http_context(const gql_resolve_info *info) {
  gql_http_request *r = gql_info_context(info);
  return r ? (void *)r->conn->x->opt->context : NULL;
}

/* ------------------------------------------------------- the request */

gql_http_request *gql_http_request_of(const gql_resolve_info *info) {
  return gql_info_context(info);
}

gql_str gql_http_request_method(const gql_http_request *r) {
  return http_str(r->method, strlen(r->method));
}

gql_str gql_http_request_path(const gql_http_request *r) {
  return r->path;
}

uint32_t gql_http_request_header_count(const gql_http_request *r) {
  return (uint32_t)(r->conn->hidx.o.len / sizeof(gql_http_header_at));
}

bool gql_http_request_header_at(const gql_http_request *r, uint32_t i,
                                gql_str *name, gql_str *value) {
  const gql_http_conn *c = r->conn;
  if (i >= gql_http_request_header_count(r))
    return false;
  gql_http_header_at at;
  memcpy(&at, c->hidx.o.data + i * sizeof at, sizeof at);
  *name = http_str(at.name_len ? c->hdrs.o.data + at.name : "", at.name_len);
  *value =
      http_str(at.value_len ? c->hdrs.o.data + at.value : "", at.value_len);
  return true;
}

gql_str gql_http_request_header(const gql_http_request *r, const char *name) {
  size_t n = strlen(name);
  uint32_t count = gql_http_request_header_count(r);
  for (uint32_t i = 0; i < count; i++) {
    gql_str k, v;
    gql_http_request_header_at(r, i, &k, &v);
    if (k.len == n && strncasecmp(k.ptr, name, n) == 0)
      return v;
  }
  const gql_value *p = r->init_payload; /* a WebSocket's connection_init */
  for (size_t i = 0, np = gql_value_count(p); i < np; i++) {
    gql_str k = gql_value_key(p, i);
    const gql_value *v = gql_value_item(p, i);
    if (k.len == n && strncasecmp(k.ptr, name, n) == 0 &&
        gql_value_kind_of(v) == GQL_VALUE_STRING)
      return gql_value_string(v);
  }
  return (gql_str){NULL, 0};
}

const char *gql_http_request_peer(gql_http_request *r) {
  if (r->peer)
    return r->peer;
  gql_http_ctx *x = r->conn->x;
  char buf[80];
  if (!r->slot || !x->peer || !x->peer(r->conn, buf, sizeof buf))
    return "";
  r->peer = arena_strndup(r->slot->arena, buf, strlen(buf));
  return r->peer ? r->peer : "";
}

const gql_value *gql_http_request_body(const gql_http_request *r) {
  return r->body;
}

gql_arena *gql_http_request_arena(gql_http_request *r) {
  return r->slot ? r->slot->arena : NULL;
}

void *gql_http_request_context(const gql_http_request *r) {
  return r->user;
}

void gql_http_request_set_context(gql_http_request *r, void *ctx) {
  r->user = ctx;
}

const gql_value *gql_http_request_claims(const gql_http_request *r) {
  return r ? r->claims : NULL;
}

void gql_http_request_set_claims(gql_http_request *r, const gql_value *claims) {
  r->claims = claims;
}

void *gql_http_request_generation(const gql_http_request *r) {
  /* a WebSocket's request has no pin of its own: the worker's current */
  const gql_http_pin *p = r->pin ? r->pin : r->conn ? r->conn->x->pin : NULL;
  return p ? p->gen->g.ud : NULL;
}

void *gql_http_request_observer(const gql_http_request *r) {
  return r->conn ? r->conn->x->obs_worker : NULL;
}

int gql_http_request_add_header(gql_http_request *r, const char *name,
                                const char *value) {
  size_t nl = strlen(name), vl = strlen(value);
  if (!nl || strpbrk(name, "\r\n:") || strpbrk(value, "\r\n"))
    return GQL_EINVAL;
  if (!r->slot || r->answered)
    return GQL_EINVAL;
  http_buf_arena *h = &r->headers;
  size_t need = h->len + nl + vl + 4;
  if (need > h->cap) {
    size_t cap = h->cap ? h->cap * 2 : 256;
    while (cap < need)
      cap *= 2;
    char *d = gql_arena_alloc(r->slot->arena, cap);
    if (!d)
      return GQL_ENOMEM;
    if (h->len)
      memcpy(d, h->data, h->len);
    h->data = d;
    h->cap = cap;
  }
  memcpy(h->data + h->len, name, nl);
  memcpy(h->data + h->len + nl, ": ", 2);
  memcpy(h->data + h->len + nl + 2, value, vl);
  memcpy(h->data + h->len + nl + 2 + vl, "\r\n", 2);
  h->len = need;
  return 0;
}

void gql_http_request_answer(gql_http_request *r, int status,
                             const char *content_type, const char *body,
                             size_t len) {
  if (r->answered)
    return;
  if (status < 100 || status > 599)
    status = 500;
  finish(r, status, content_type, NULL, body ? body : "", body ? len : 0);
}

void gql_http_request_reject(gql_http_request *r, int status,
                             const char *message, const char *code) {
  if (r->answered)
    return;
  if (status < 100 || status > 599)
    status = 500;
  r->graphql_response =
      negotiate(http_str(r->conn->accept.o.data, r->conn->accept.o.len)) == 1;
  r->errors = true; /* for the observer: an error before execution */
  http_buf b = {0};
  http_buf_puts(&b, "{\"errors\":[{\"message\":");
  json_string(&b, message ? message : "");
  if (code) {
    http_buf_puts(&b, ",\"extensions\":{\"code\":");
    json_string(&b, code);
    http_buf_putc(&b, '}');
  }
  http_buf_puts(&b, "}]}");
  if (b.failed)
    finish(r, 503, content_type(r), NULL, "", 0);
  else
    finish(r, status, content_type(r), NULL, b.o.data, b.o.len);
  http_buf_free(&b);
}

bool gql_http_request_answered(const gql_http_request *r) {
  return r->answered;
}
