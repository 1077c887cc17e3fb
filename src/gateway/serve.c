/* The gateway's request executor for the http server (see serve.h). */
#include "serve.h"
#include "subscribe.h"

#include <stdlib.h>

/* A subgraph's series of gql_subgraph_requests_total by HTTP status, found
 * the first time each is seen (a few statuses per subgraph). */
enum { STATUS_KEPT = 6 };
typedef struct gw_sub_metrics {
  gql_metric_series duration;
  uint32_t nstatus;
  int status[STATUS_KEPT]; /* 0: "error" (no response) */
  gql_metric_series requests[STATUS_KEPT];
} gw_sub_metrics;

typedef struct gw_worker gw_worker;

/* A worker's state for one supergraph (hot reload: a new generation of
 * the server brings a new one): its subgraphs' client, plans, header
 * rules and metric series. Held by the worker while current and by each
 * request on it (one thread: no atomics). */
typedef struct gw_gen {
  gw_worker *w;
  const gql_supergraph *sg;
  gql_gw_client *client;
  gql_gw_plan_cache *plans;
  gql_header_policy *headers; /* the generation's rules (NULL: none) */
  gql_header_rules **rules;   /* per subgraph (with headers) */
  gw_sub_metrics *subs;       /* per subgraph (with w->sh) */
  unsigned refs;
  struct gw_gen *prev, *next; /* in w->gens: every generation held */
} gw_gen;

/* A closed client whose connections may still be closing: freed with the
 * worker, after its loop has ended. */
typedef struct gw_retired {
  gql_gw_client *client;
  struct gw_retired *next;
} gw_retired;

struct gw_worker {
  gql_gw_executor *ge;
  uv_loop_t *loop;
  gw_gen *cur;
  gw_gen *gens; /* every generation still held (the current, and older
                   ones requests in flight hold) */
  gw_retired *retired;
  size_t response_hint; /* the last response's size: the next buffer's */
  uint64_t rng;         /* progressive override draws */
  /* metrics (ge->opt.metrics): this worker's shard */
  gql_metrics_shard *sh;
  /* readiness probes (the one worker that probes), on a client of their
   * own: closed once all answered, its connections never in the pool of
   * the plans' requests */
  gql_gw_client *probe_client;
  const gql_supergraph *probe_sg; /* the supergraph probed (the current) */
  bool *probe_ok;                 /* per subgraph of probe_sg */
  uint64_t probe_round;           /* one more per supergraph probed */
  bool prober, stopping, timer_open;
  unsigned probes_pending;
  uv_timer_t probe_timer;
  gql_ws_pool *ws_pool; /* subscriptions' frames (made at the first) */
};

/* One client request in flight. */
typedef struct gw_exec {
  gw_worker *w;
  gw_gen *gen; /* held until the response is written */
  gql_http_exec *req;
  const gql_gw_plan *plan;
  gql_gw_plan_ref *plan_ref; /* held until the response is written */
  gql_gw_request *gr;
  uint32_t next;        /* the first batch of the next wave */
  unsigned pending;     /* fetches in flight (+1 while a wave starts) */
  char **answers;       /* subgraph answers taken from the client, per batch:
                           the merged tree points into them until finish */
  const char **headers; /* per subgraph: the header lines of its requests,
                           made at its first fetch (NULL: not yet) */
  gql_header_input hin; /* the client's side, for the rules */
  bool hin_ready;
  uint32_t span; /* the request's span in req->trace (0: untraced) */
  /* a subscription's event (subscribe.c): its response goes here */
  gql_gw_event_done event_done;
  void *event_ud;
  /* @defer: the initial payload went out; the client went away; the
   * wave started last and the last one whose fragments were delivered */
  bool initial_sent, cancelled;
  uint32_t wave, delivered;
} gw_exec;

typedef struct gw_fetch {
  gw_exec *e;
  uint32_t batch;
  uint64_t start_ns; /* uv_hrtime at the post (with metrics) */
  uint32_t span;     /* the fetch's span (0: untraced) */
} gw_fetch;

static void json_escape(gql_buf *b, const char *s) {
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\') {
      gql_buf_putc(b, '\\');
      gql_buf_putc(b, (char)ch);
    } else if (ch < 0x20) {
      gql_buf_printf(b, "\\u%04x", ch);
    } else {
      gql_buf_putc(b, (char)ch);
    }
  }
}

/* A request that cannot run: {"errors":[{"message":...}]}, with
 * extensions.code when given (as Apollo Router's). */
static void respond_code(gql_http_exec *req, const char *message,
                         const char *code) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_puts(&b, "{\"errors\":[{\"message\":\"");
  json_escape(&b, message);
  gql_buf_putc(&b, '"');
  if (code)
    gql_buf_printf(&b, ",\"extensions\":{\"code\":\"%s\"}", code);
  gql_buf_puts(&b, "}]}");
  if (b.failed)
    gql_http_exec_done(req, "{\"errors\":[{\"message\":\"Out of memory.\"}]}",
                       41);
  else
    gql_http_exec_done(req, b.data, b.len);
  gql_buf_free(&b);
}

static void respond_error(gql_http_exec *req, const char *message) {
  respond_code(req, message, NULL);
}

static void gen_release(gw_gen *g);

/* The answers, the plan and the generation are let go of. */
static void release(gw_exec *e) {
  for (uint32_t i = 0; i < e->plan->nbatches; i++)
    free(e->answers[i]);
  gql_gw_plan_cache_release(e->plan_ref);
  gen_release(e->gen);
}

/* @defer: after deferred wave `level` (UINT32_MAX: the last), the
 * payload of the fragments it made ready. True when that ended the
 * response (nothing left to deliver, or the client went away). */
static bool deliver(gw_exec *e, uint32_t level) {
  gql_buf out;
  gql_buf_init(&out, NULL);
  bool more = false;
  int rc = e->cancelled ? 0 : gql_gw_defer_next(e->gr, level, &out, &more);
  bool end = e->cancelled || rc || out.failed || !more;
  if (end) {
    gql_trace_span_end(e->req->trace, e->span);
    release(e);
  }
  if (e->cancelled || rc || out.failed)
    gql_http_exec_payload(e->req, NULL, 0, false);
  else if (out.len)
    gql_http_exec_payload(e->req, out.data, out.len, more);
  gql_buf_free(&out);
  return end;
}

/* @defer: the initial payload, once the primary waves are merged. True
 * when that ended the response (nothing was deferred after all). */
static bool send_initial(gw_exec *e) {
  e->initial_sent = true;
  gql_buf out;
  gql_buf_init(&out, NULL);
  bool plain = false;
  int rc = gql_gw_defer_initial(e->gr, &out, &plain);
  if (rc || out.failed || plain) {
    gql_trace_span_end(e->req->trace, e->span);
    release(e);
    if (rc || out.failed)
      respond_error(e->req, gql_strerror(rc ? rc : GQL_ENOMEM));
    else
      gql_http_exec_done(e->req, out.data, out.len);
  } else {
    gql_http_exec_payload(e->req, out.data, out.len, true);
  }
  gql_buf_free(&out);
  return rc || plain;
}

static void on_cancel(void *ud) {
  gw_exec *e = ud;
  e->cancelled = true; /* no further waves; ended when those in flight are */
}

static void finish(gw_exec *e) {
  if (e->initial_sent) {
    deliver(e, UINT32_MAX);
    return;
  }
  gql_trace_span_end(e->req->trace, e->span);
  gql_buf out;
  gql_buf_init(&out, NULL);
  gql_buf_reserve(&out, e->w->response_hint + 256);
  int rc = gql_gw_request_response(e->gr, &out);
  if (!out.failed)
    e->w->response_hint = out.len < ((size_t)1 << 20) ? out.len : 0;
  for (uint32_t i = 0; i < e->plan->nbatches; i++)
    free(e->answers[i]);
  gql_gw_plan_cache_release(e->plan_ref);
  gen_release(e->gen);
  if (e->event_done)
    e->event_done(e->event_ud, rc || out.failed ? NULL : out.data, out.len);
  else if (rc || out.failed)
    respond_error(e->req, gql_strerror(rc ? rc : GQL_ENOMEM));
  else /* errors first, when there are some (gql_gw_request_response) */
    gql_http_exec_done_errors(e->req, out.data, out.len,
                              out.len >= 10 &&
                                  memcmp(out.data, "{\"errors\":", 10) == 0);
  gql_buf_free(&out);
}

static void run(gw_exec *e);

/* gql_subgraph_requests_total / _duration_seconds of one fetch. */
static void count_fetch(gw_gen *gen, uint32_t graph, int http_status,
                        uint64_t ns) {
  gw_worker *w = gen->w;
  gql_server_metrics *sm = w->ge->opt.metrics;
  gw_sub_metrics *g = &gen->subs[graph];
  gql_metrics_observe_ns(w->sh, &g->duration, ns);
  for (uint32_t i = 0; i < g->nstatus; i++)
    if (g->status[i] == http_status) {
      gql_metrics_add(w->sh, &g->requests[i], 1);
      return;
    }
  char code[16];
  snprintf(code, sizeof code, "%d", http_status);
  gql_str v[2] = {gen->sg->graphs[graph].name,
                  http_status ? gql_cstr(code) : GQL_STR("error")};
  gql_metric_series s;
  if (!gql_metrics_series(sm->m, sm->subgraph_requests, v, &s))
    return;
  gql_metrics_add(w->sh, &s, 1);
  if (g->nstatus < STATUS_KEPT) {
    g->status[g->nstatus] = http_status;
    g->requests[g->nstatus++] = s;
  }
}

/* The client's headers and claims, as the rules read them (once). */
static void header_input(gw_exec *e) {
  e->hin_ready = true;
  gql_http_request *r = e->req->request;
  if (!r)
    return;
  uint32_t n = gql_http_request_header_count(r);
  gql_header *h = n ? gql_arena_alloc(e->req->arena, n * sizeof *h) : NULL;
  for (uint32_t i = 0; h && i < n; i++)
    gql_http_request_header_at(r, i, &h[i].name, &h[i].value);
  e->hin.headers = h;
  e->hin.nheaders = h ? n : 0;
  e->hin.body = gql_http_request_body(r);
  if (e->w->ge->opt.claims)
    e->hin.claims = e->w->ge->opt.claims(r);
}

/* The header lines of subgraph `graph`'s requests ("" when none), NULL on
 * no memory. Made once per request and subgraph. */
static const char *graph_headers(gw_exec *e, uint32_t graph) {
  if (!e->gen->headers)
    return "";
  if (e->headers[graph])
    return e->headers[graph];
  if (!e->hin_ready)
    header_input(e);
  gql_header_list list = {0};
  if (gql_header_rules_apply(e->gen->rules[graph], &e->hin, &list,
                             e->req->arena) < 0)
    return NULL;
  gql_buf b;
  gql_buf_init(&b, NULL);
  for (uint32_t i = 0; i < list.count; i++) {
    gql_str k = list.items[i].name, v = list.items[i].value;
    if (memchr(k.ptr, '\n', k.len) || memchr(k.ptr, '\r', k.len) ||
        memchr(v.ptr, '\n', v.len) || memchr(v.ptr, '\r', v.len))
      continue; /* never a header that would split the request */
    gql_buf_append(&b, k.ptr, k.len);
    gql_buf_puts(&b, ": ");
    gql_buf_append(&b, v.ptr, v.len);
    gql_buf_puts(&b, "\r\n");
  }
  char *text =
      b.failed ? NULL
               : gql_arena_strndup(e->req->arena, b.data ? b.data : "", b.len);
  gql_buf_free(&b);
  return e->headers[graph] = text;
}

static void on_fetch(void *ud, int status, const char *why, const char *json,
                     size_t len) {
  gw_fetch *f = ud;
  gw_exec *e = f->e;
  if (f->span) {
    gql_trace *tr = e->req->trace;
    int hs = gql_gw_client_answer_status(e->gen->client);
    char n[24];
    if (hs) {
      snprintf(n, sizeof n, "%d", hs);
      gql_trace_span_tag(tr, f->span, "http.response.status_code", n,
                         strlen(n));
    }
    snprintf(n, sizeof n, "%zu", status ? (size_t)0 : len);
    gql_trace_span_tag(tr, f->span, "http.response.body.size", n, strlen(n));
    if (status)
      gql_trace_span_error(tr, f->span, why ? why : gql_strerror(status));
    gql_trace_span_end(tr, f->span);
  }
  if (e->w->sh) {
    int hs = gql_gw_client_answer_status(e->gen->client);
    count_fetch(e->gen, e->plan->batches[f->batch].graph,
                status && hs >= 200 && hs < 300 ? 0 : hs,
                uv_hrtime() - f->start_ns);
  }
  if (status == 0) {
    /* The merged tree may point into the text: it is taken from the
     * client (freed by finish) or else copied into the request's arena. */
    char *text = gql_gw_client_take_answer(e->gen->client);
    if (text)
      e->answers[f->batch] = text;
    else
      text = gql_arena_strndup(e->req->arena, json, len);
    if (!text || gql_gw_request_merge(e->gr, f->batch, text, len) < 0)
      gql_gw_request_fail(e->gr, f->batch, "out of memory");
  } else {
    gql_gw_request_fail(e->gr, f->batch, why ? why : gql_strerror(status));
  }
  if (--e->pending == 0)
    run(e);
}

/* A subgraph fetch's span under the request's, and the trace context
 * headers naming it as the subgraph's parent (traceparent; tracestate as
 * the client sent it). 0 when untraced. */
static uint32_t fetch_span(gw_exec *e, uint32_t graph, char *headers) {
  gql_trace *tr = e->req->trace;
  uint32_t s =
      gql_trace_span_start(tr, "gateway.fetch", GQL_SPAN_CLIENT, e->span);
  if (!s)
    return 0;
  const gql_gw_graph *g = &e->gen->sg->graphs[graph];
  gql_trace_span_tag(tr, s, "subgraph.name", g->name.ptr, g->name.len);
  gql_trace_span_tag(tr, s, "url.full", g->url.ptr, g->url.len);
  gql_trace_span_tag(tr, s, "gateway.retries", "0", 1);
  char tp[GQL_TRACEPARENT_LEN + 1];
  gql_trace_span_traceparent(tr, s, tp);
  gql_str ts = gql_trace_tracestate(tr);
  if (ts.len > GQL_TRACESTATE_MAX)
    ts.len = 0;
  int n = sprintf(headers, "traceparent: %s\r\n", tp);
  if (ts.len)
    sprintf(headers + n, "tracestate: %.*s\r\n", (int)ts.len, ts.ptr);
  return s;
}

/* Starts the next wave once the previous one has been merged; writes the
 * response after the last. */
static void run(gw_exec *e) {
  const gql_gw_plan *plan = e->plan;
  char trace_headers[GQL_TRACEPARENT_LEN + 32 + 16 + GQL_TRACESTATE_MAX];
  gql_buf body;
  gql_buf_init(&body, NULL);
  while (!e->pending) {
    if (plan->ndefers && !e->initial_sent &&
        (e->next >= plan->nbatches ||
         plan->batches[e->next].level > plan->primary_levels) &&
        send_initial(e)) {
      gql_buf_free(&body);
      return;
    }
    if (e->initial_sent && e->wave > plan->primary_levels &&
        e->delivered != e->wave && e->next < plan->nbatches) {
      e->delivered = e->wave; /* the fragments that wave made ready */
      if (deliver(e, e->wave)) {
        gql_buf_free(&body);
        return;
      }
    }
    if (e->next >= plan->nbatches || e->cancelled) {
      gql_buf_free(&body);
      finish(e);
      return;
    }
    uint32_t level = plan->batches[e->next].level;
    e->wave = level;
    e->pending++; /* no wave ends while it starts */
    for (; e->next < plan->nbatches && plan->batches[e->next].level == level;
         e->next++) {
      uint32_t i = e->next;
      body.len = 0;
      int rc = gql_gw_request_body(e->gr, i, &body);
      if (rc == 1)
        continue; /* nothing to ask */
      gw_fetch *f = gql_arena_alloc(e->req->arena, sizeof *f);
      if (rc < 0 || body.failed || !f) {
        gql_gw_request_fail(e->gr, i, "out of memory");
        continue;
      }
      uint32_t graph = plan->batches[i].graph;
      const char *headers = graph_headers(e, graph);
      if (!headers) {
        gql_gw_request_fail(e->gr, i, "out of memory");
        continue;
      }
      f->e = e;
      f->batch = i;
      f->start_ns = e->w->sh ? uv_hrtime() : 0;
      f->span = fetch_span(e, graph, trace_headers);
      if (f->span) { /* the rules' lines, then the trace context's */
        size_t hl = strlen(headers), tl = strlen(trace_headers);
        char *both = gql_arena_alloc(e->req->arena, hl + tl + 1);
        if (both) {
          memcpy(both, headers, hl);
          memcpy(both + hl, trace_headers, tl + 1);
          headers = both;
        }
      }
      e->pending++;
      rc = gql_gw_client_post(e->gen->client, graph, headers, body.data,
                              body.len, on_fetch, f);
      if (rc < 0) {
        e->pending--;
        gql_gw_request_fail(e->gr, i, gql_strerror(rc));
      }
    }
    e->pending--;
  }
  gql_buf_free(&body);
}

/* Coerces the variables as the executor does (defaults applied, invalid
 * values refused with graphql-js's errors) into *out, the object the
 * subgraph requests take their values from. True when valid; else the
 * response has been written. */
static bool coerce_variables(gql_http_exec *req, const gql_value **out) {
  gql_errors errors = {.arena = req->arena};
  int rc = gql_prepared_coerce_variables(req->prepared, req->arena,
                                         req->variables, out, &errors);
  if (rc == GQL_ENOMEM) { /* the client's values, unchecked */
    *out = req->variables;
    return true;
  }
  if (rc == 0)
    return true;
  /* graphql-js's errors, each with Apollo Router's code */
  gql_str json;
  if (gql_errors_response(&errors, "VALIDATION_INVALID_TYPE_VARIABLE",
                          req->arena, &json) < 0)
    respond_error(req, "Out of memory.");
  else
    gql_http_exec_done(req, json.ptr, json.len);
  return false;
}

/* ---- generations: the worker's state per supergraph */

/* Closes a client, to be freed once its connections have closed. */
static void retire(gw_worker *w, gql_gw_client *c) {
  if (!c)
    return;
  gw_retired *r = malloc(sizeof *r);
  gql_gw_client_close(c);
  if (r) {
    *r = (gw_retired){c, w->retired};
    w->retired = r;
  } /* else the client leaks rather than being freed with handles open */
}

/* Frees the retired clients whose connections have all closed (hot
 * reload: an old supergraph's pool goes once its last request has, not at
 * the worker's exit). */
static void sweep_retired(gw_worker *w) {
  for (gw_retired **p = &w->retired; *p;) {
    gw_retired *r = *p;
    if (!gql_gw_client_closed(r->client)) {
      p = &r->next;
      continue;
    }
    *p = r->next;
    gql_gw_client_free(r->client);
    free(r);
  }
}

static void gen_release(gw_gen *g) {
  if (!g || --g->refs)
    return;
  if (g->prev)
    g->prev->next = g->next;
  else
    g->w->gens = g->next;
  if (g->next)
    g->next->prev = g->prev;
  retire(g->w, g->client);
  gql_gw_plan_cache_free(g->plans);
  gql_header_policy_free(g->headers);
  free(g->rules);
  free(g->subs);
  free(g);
}

/* An operation from the old plan cache is planned on the new supergraph
 * only if it still validates against its API schema. */
static bool still_valid(void *ud, const char *query, size_t len,
                        const char *op) {
  const gql_supergraph *sg = ud;
  gql_arena *arena = gql_arena_new(NULL);
  if (!arena)
    return false;
  gql_prepared *prep = NULL;
  gql_errors errors = {.arena = arena};
  bool ok = gql_prepare(sg->api, query, len, op, NULL, &prep, &errors) == 0;
  gql_prepared_free(prep);
  gql_arena_free(arena);
  return ok;
}

/* The worker's state for `sg` with the header rules of `hc` (NULL: none)
 * and a client with options `co` (NULL after saying why), its plan cache
 * warmed with the hottest operations of `from` (NULL: none). */
static gw_gen *gen_new(gw_worker *w, const gql_supergraph *sg,
                       const gql_cfg_headers *hc,
                       const gql_gw_client_options *co, const gw_gen *from) {
  gql_gw_executor *ge = w->ge;
  gw_gen *g = calloc(1, sizeof *g);
  gql_str *urls = calloc(sg->ngraphs ? sg->ngraphs : 1, sizeof *urls);
  uint32_t bad = 0;
  int rc = g && urls ? 0 : GQL_ENOMEM;
  for (uint32_t i = 0; urls && i < sg->ngraphs; i++)
    urls[i] = sg->graphs[i].url;
  if (!rc)
    rc = gql_gw_client_new(w->loop, urls, sg->ngraphs, co, &g->client, &bad);
  free(urls);
  if (rc) {
    if (rc == GQL_EINVAL)
      fprintf(stderr, "gql gateway: subgraph %.*s: unusable url '%.*s'\n",
              (int)sg->graphs[bad].name.len, sg->graphs[bad].name.ptr,
              (int)sg->graphs[bad].url.len, sg->graphs[bad].url.ptr);
    free(g);
    return NULL;
  }
  *g = (gw_gen){
      .w = w, .sg = sg, .client = g->client, .refs = 1, .next = w->gens};
  if (w->gens)
    w->gens->prev = g;
  w->gens = g;
  bool ok = (g->plans = gql_gw_plan_cache_new(sg, ge->opt.plan_cache_bytes));
  gql_server_metrics *sm = ge->opt.metrics;
  if (ok && w->sh) {
    ok = (g->subs = calloc(sg->ngraphs ? sg->ngraphs : 1, sizeof *g->subs));
    for (uint32_t i = 0; ok && i < sg->ngraphs; i++)
      ok = gql_metrics_series(sm->m, sm->subgraph_duration, &sg->graphs[i].name,
                              &g->subs[i].duration);
  }
  if (ok && hc && (hc->all.count || hc->nsubgraphs)) {
    char why[256];
    ok = gql_header_policy_build(hc, &g->headers, why, sizeof why) == 0;
  }
  if (ok && g->headers) {
    ok = (g->rules = calloc(sg->ngraphs ? sg->ngraphs : 1, sizeof *g->rules));
    for (uint32_t i = 0; ok && i < sg->ngraphs; i++)
      g->rules[i] = gql_header_policy_for(g->headers, sg->graphs[i].name);
  }
  if (!ok) {
    gen_release(g);
    return NULL;
  }
  if (from) /* before it serves: no request pays for these plans */
    gql_gw_plan_cache_warm(g->plans, from->plans,
                           ge->opt.warm_plans ? ge->opt.warm_plans : 64,
                           still_valid, (void *)sg);
  return g;
}

/* The supergraph of a server generation (NULL: the first). */
static const gql_supergraph *sg_of(const gql_gw_executor *ge, void *gen) {
  const gql_supergraph *sg =
      gen && ge->opt.supergraph_of ? ge->opt.supergraph_of(gen) : NULL;
  return sg ? sg : ge->sg;
}

/* The header rules of a server generation (NULL: the first's). */
static const gql_cfg_headers *headers_of(const gql_gw_executor *ge, void *gen) {
  const gql_cfg_headers *hc =
      gen && ge->opt.headers_of ? ge->opt.headers_of(gen) : NULL;
  return hc ? hc : ge->opt.headers;
}

static void probe_start(gw_worker *w, const gql_supergraph *sg);

/* The server moved this worker to a new generation. */
static void on_generation(void *worker, void *ud) {
  gw_worker *w = worker;
  sweep_retired(w);
  const gql_supergraph *sg = sg_of(w->ge, ud);
  if (w->cur && w->cur->sg == sg)
    return;
  gql_gw_client_options co = w->ge->opt.client;
  if (ud && w->ge->opt.client_of)
    w->ge->opt.client_of(ud, &co);
  gw_gen *g = gen_new(w, sg, headers_of(w->ge, ud), &co, w->cur);
  if (!g)
    return; /* the requests on it will try again */
  gen_release(w->cur);
  w->cur = g;
  if (w->prober) /* readiness follows the current supergraph */
    probe_start(w, sg);
}

/* Who asks: the verified claims of the client's request (anonymous
 * without), for the @authenticated and @requiresScopes fields: what the
 * plan fetches and what the projection nulls. */
static gql_gw_who who_of(gw_worker *w, gql_http_exec *req) {
  const gql_json_value *claims = w->ge->opt.claims && req->request
                                     ? w->ge->opt.claims(req->request)
                                     : NULL;
  gql_gw_who who = {false, {"", 0}};
  if (claims) {
    const gql_json_value *scope = gql_json_get(claims, GQL_STR("scope"));
    who.authenticated = true;
    if (scope && scope->kind == GQL_JSON_STRING)
      who.scopes = scope->string;
  }
  return who;
}

static void request_access(gw_worker *w, gql_http_exec *req,
                           gql_gw_request *gr) {
  gql_gw_who who = who_of(w, req);
  gql_gw_request_set_access(gr, &who);
}

/* ---- subscriptions (subscribe.c): the root fetch is the subgraph's
 * subscription; each event runs the rest of the plan here */

static int run_event(void *ud, gql_http_exec *ev, const gql_gw_plan *plan,
                     const gql_value *variables, const char *json, size_t len,
                     gql_gw_event_done done, void *done_ud) {
  gw_gen *gen = ud;
  gw_worker *w = gen->w;
  size_t na = (plan->nbatches + 1) * sizeof(char *);
  size_t nh = (gen->sg->ngraphs + 1) * sizeof(const char *);
  gw_exec *e = gql_arena_alloc(ev->arena, sizeof *e);
  char **answers = e ? gql_arena_alloc(ev->arena, na) : NULL;
  const char **headers =
      gen->headers && answers ? gql_arena_alloc(ev->arena, nh) : NULL;
  if (!answers || (gen->headers && !headers))
    return GQL_ENOMEM;
  memset(answers, 0, na);
  if (headers)
    memset(headers, 0, nh);
  *e = (gw_exec){.w = w,
                 .gen = gen,
                 .req = ev,
                 .plan = plan,
                 .answers = answers,
                 .headers = headers,
                 .next = 1, /* batch 0, the root fetch, is the event */
                 .event_done = done,
                 .event_ud = done_ud};
  int rc = gql_gw_request_new(plan, variables, ev->arena, &e->gr);
  if (!rc) {
    request_access(w, ev, e->gr);
    rc = gql_gw_request_merge(e->gr, 0, json, len);
  }
  if (rc)
    return rc;
  gen->refs++; /* released by finish */
  run(e);
  return 0;
}

static void host_release(void *ud) {
  gen_release(ud);
}

/* A subscription operation, planned: relayed from its root field's
 * subgraph (subscribe.c), which then owns the request and `ref`. */
static int subscribe(gw_worker *w, gw_gen *gen, gql_http_exec *req,
                     const gql_gw_plan *plan, gql_gw_plan_ref *ref,
                     const gql_value *variables) {
  const gql_gw_serve_options *o = &w->ge->opt;
  for (const gql_gw_sel *c = plan->client.first; c; c = c->next)
    if (c->denied) { /* (its root field: nothing to open) */
      respond_code(req, "Unauthorized field or type",
                   "UNAUTHORIZED_FIELD_OR_TYPE");
      gql_gw_plan_cache_release(ref);
      return 0;
    }
  if (!w->ws_pool)
    w->ws_pool = gql_ws_pool_new(&(gql_ws_limits){
        .max_message = o->client.max_response > (1u << 30)
                           ? 1u << 30
                           : (uint32_t)o->client.max_response});
  if (!w->ws_pool) {
    gql_gw_plan_cache_release(ref);
    return GQL_ENOMEM;
  }
  /* the headers rules of the subgraph, on its upgrade request */
  const char *headers = NULL;
  if (gen->headers && plan->nbatches) {
    size_t nh = (gen->sg->ngraphs + 1) * sizeof(const char *);
    gw_exec *e = gql_arena_alloc(req->arena, sizeof *e);
    const char **hs = e ? gql_arena_alloc(req->arena, nh) : NULL;
    if (hs) {
      memset(hs, 0, nh);
      *e = (gw_exec){.w = w, .gen = gen, .req = req, .headers = hs};
      headers = graph_headers(e, plan->batches[0].graph);
    }
    if (!headers) {
      gql_gw_plan_cache_release(ref);
      return GQL_ENOMEM;
    }
  }
  /* the subgraph's protocol and path (subscription.mode.passthrough) */
  const gql_cfg_subscription *sm =
      o->subscription_mode_of && req->generation
          ? o->subscription_mode_of(req->generation)
          : NULL;
  if (!sm)
    sm = o->subscription_mode;
  gql_cfg_sub_passthrough pt = {0};
  if (sm && plan->nbatches)
    pt = gql_cfg_sub_passthrough_of(
        sm, gen->sg->graphs[plan->batches[0].graph].name);
  gql_gw_sub_params p = {.req = req,
                         .plan = plan,
                         .plan_ref = ref,
                         .variables = variables,
                         .sg = gen->sg,
                         .pool = w->ws_pool,
                         .headers = headers,
                         .queue_capacity = o->subscription.queue_capacity,
                         .ping_interval_ms = o->subscription.ping_interval_ms,
                         .connect_timeout_ms = o->client.connect_timeout_ms,
                         .ack_timeout_ms = o->client.request_timeout_ms,
                         .sse = pt.protocol == GQL_CFG_SUB_SSE,
                         .path = pt.path,
                         .max_event = o->client.max_response,
                         .host = {gen, run_event, host_release}};
  gen->refs++; /* the subscription's: host_release */
  const char *why = NULL;
  int rc = gql_gw_subscribe(&p, &why);
  if (!rc)
    return 0;
  gen_release(gen);
  gql_gw_plan_cache_release(ref);
  if (!why)
    return rc;
  respond_code(req, why, "QUERY_PLANNING_FAILED");
  return 0;
}

static int execute(void *worker, gql_http_exec *req) {
  gw_worker *w = worker;
  if (w->retired)
    sweep_retired(w);
  if (gql_prepared_operation(req->prepared) == GQL_OP_SUBSCRIPTION &&
      !gql_http_exec_streams(req)) {
    respond_code(req,
                 "Subscriptions are served over WebSocket "
                 "(graphql-transport-ws) only.",
                 NULL);
    return 0;
  }
  if (w->cur->sg != sg_of(w->ge, req->generation)) {
    on_generation(w, req->generation);
    if (w->cur->sg != sg_of(w->ge, req->generation))
      return GQL_ENOMEM;
  }
  gw_gen *gen = w->cur;
  uint32_t span =
      gql_trace_span_start(req->trace, "gateway.request", GQL_SPAN_SERVER, 0);
  if (span && req->operation_name)
    gql_trace_span_tag(req->trace, span, "graphql.operation.name",
                       req->operation_name, strlen(req->operation_name));
  const gql_value *variables;
  if (!coerce_variables(req, &variables))
    return 0;
  const char *err = NULL;
  const gql_gw_plan *plan = NULL;
  gql_gw_plan_ref *ref = NULL;
  gql_gw_plan_cache_info before;
  uint32_t pspan =
      gql_trace_span_start(req->trace, "gateway.plan", GQL_SPAN_INTERNAL, span);
  if (w->sh || pspan)
    gql_gw_plan_cache_stats(gen->plans, &before);
  int rc = gql_gw_plan_cache_get(gen->plans, req->query.ptr, req->query.len,
                                 req->operation_name, &plan, &ref, &err);
  if (w->sh || pspan) {
    gql_gw_plan_cache_info after;
    gql_gw_plan_cache_stats(gen->plans, &after);
    gql_server_metrics *sm = w->ge->opt.metrics;
    bool hit = after.hits != before.hits;
    if (w->sh && hit)
      gql_metrics_add(w->sh, &sm->plan_hits, 1);
    else if (w->sh && after.misses != before.misses)
      gql_metrics_add(w->sh, &sm->plan_misses, 1);
    gql_trace_span_tag(req->trace, pspan, "gateway.plan_cache",
                       hit ? "hit" : "miss", hit ? 3 : 4);
  }
  gql_gw_who who = who_of(w, req);
  if (!rc && plan->set) /* conditions, override labels, guarded fields */
    rc = gql_gw_plan_for(plan, variables, gql_gw_draw_labels(gen->sg, &w->rng),
                         &who, req->arena, &plan, &err);
  if (rc)
    gql_trace_span_error(req->trace, pspan, err ? err : gql_strerror(rc));
  gql_trace_span_end(req->trace, pspan);
  if (rc) {
    respond_code(req, err ? err : gql_strerror(rc),
                 rc == GQL_EUNSUPPORTED ? "QUERY_PLANNING_FAILED" : NULL);
    gql_gw_plan_cache_release(ref);
    return 0;
  }
  if (gql_prepared_operation(req->prepared) == GQL_OP_SUBSCRIPTION)
    return subscribe(w, gen, req, plan, ref, variables);
  if (plan->ndefers && !gql_http_exec_streams(req)) {
    /* graphql-http's refusal: the client does not read several payloads */
    gql_http_exec_payload(req, NULL, 0, false);
    gql_gw_plan_cache_release(ref);
    return 0;
  }
  gw_exec *e = gql_arena_alloc(req->arena, sizeof *e);
  if (e)
    e->answers =
        gql_arena_alloc(req->arena, (plan->nbatches + 1) * sizeof *e->answers);
  if (!e || !e->answers) {
    gql_gw_plan_cache_release(ref);
    return GQL_ENOMEM;
  }
  const char **headers = NULL;
  if (gen->headers &&
      !(headers = gql_arena_alloc(req->arena,
                                  (gen->sg->ngraphs + 1) * sizeof *headers))) {
    gql_gw_plan_cache_release(ref);
    return GQL_ENOMEM;
  }
  if (headers)
    memset(headers, 0, (gen->sg->ngraphs + 1) * sizeof *headers);
  char **answers = e->answers;
  *e = (gw_exec){.w = w,
                 .gen = gen,
                 .req = req,
                 .plan = plan,
                 .plan_ref = ref,
                 .answers = answers,
                 .headers = headers,
                 .span = span};
  memset(e->answers, 0, (plan->nbatches + 1) * sizeof *e->answers);
  rc = gql_gw_request_new(plan, variables, req->arena, &e->gr);
  if (rc) {
    gql_gw_plan_cache_release(ref);
    return rc;
  }
  gql_gw_request_set_access(e->gr, &who);
  if (plan->introspection.len) { /* __schema / __type: the gateway's own */
    gql_str json;
    rc = gql_gw_introspect(plan, variables, req->arena, &json);
    if (!rc)
      rc = gql_gw_request_merge_local(e->gr, json.ptr, json.len);
    if (rc) {
      gql_gw_plan_cache_release(ref);
      return rc;
    }
  }
  gen->refs++; /* released by finish */
  if (plan->ndefers)
    gql_http_exec_on_cancel(req, on_cancel, e);
  run(e);
  return 0;
}

/* ---- readiness: every subgraph of the current supergraph answered a
 * probe. One worker probes, on a client of its own; a reload starts a new
 * round for the new supergraph (a subgraph at a URL that already answered
 * counts as answered), and the answers of an older round are dropped. */

typedef struct gw_probe {
  gw_worker *w;
  uint32_t graph;
  uint64_t round;
} gw_probe;

static void probe_all(gw_worker *w);
static void on_probe_timer(uv_timer_t *t);

static bool all_ok(const gw_worker *w) {
  for (uint32_t i = 0; i < w->probe_sg->ngraphs; i++)
    if (!w->probe_ok[i])
      return false;
  return true;
}

static void on_probe(void *ud, int status, const char *why, const char *json,
                     size_t len) {
  (void)why, (void)json, (void)len;
  gw_probe *p = ud;
  gw_worker *w = p->w;
  bool stale = p->round != w->probe_round;
  if (!stale && status == 0)
    w->probe_ok[p->graph] = true;
  free(p);
  if (stale || --w->probes_pending || w->stopping)
    return;
  if (!all_ok(w)) {
    uv_timer_start(&w->probe_timer, on_probe_timer, 500, 0);
    return;
  }
  atomic_store(&w->ge->ready, true);
  retire(w, w->probe_client);
  w->probe_client = NULL;
}

static void probe_all(gw_worker *w) {
  static const char body[] = "{\"query\":\"{__typename}\"}";
  if (w->stopping || !w->probe_client)
    return;
  w->probe_timer.data = w;
  for (uint32_t i = 0; i < w->probe_sg->ngraphs; i++) {
    if (w->probe_ok[i])
      continue;
    gw_probe *p = malloc(sizeof *p);
    if (!p)
      break;
    *p = (gw_probe){w, i, w->probe_round};
    w->probes_pending++;
    if (gql_gw_client_post(w->probe_client, i, NULL, body, sizeof body - 1,
                           on_probe, p) < 0) {
      w->probes_pending--;
      free(p);
    }
  }
  if (!w->probes_pending)
    uv_timer_start(&w->probe_timer, on_probe_timer, 500, 0);
}

static void on_probe_timer(uv_timer_t *t) {
  probe_all(t->data);
}

/* Probes `sg`'s subgraphs from now on (the prober's). */
static void probe_start(gw_worker *w, const gql_supergraph *sg) {
  bool *ok = calloc(sg->ngraphs ? sg->ngraphs : 1, sizeof *ok);
  if (!ok)
    return; /* the old round goes on */
  for (uint32_t i = 0; w->probe_sg && i < sg->ngraphs; i++)
    for (uint32_t k = 0; !ok[i] && k < w->probe_sg->ngraphs; k++)
      ok[i] = w->probe_ok[k] &&
              gql_str_eq(sg->graphs[i].url, w->probe_sg->graphs[k].url);
  retire(w, w->probe_client);
  w->probe_client = NULL;
  free(w->probe_ok);
  w->probe_ok = ok;
  w->probe_sg = sg;
  w->probe_round++;
  w->probes_pending = 0;
  bool ready = all_ok(w);
  atomic_store(&w->ge->ready, ready);
  if (!w->timer_open)
    return; /* stopping */
  uv_timer_stop(&w->probe_timer);
  if (ready)
    return;
  gql_str *urls = calloc(sg->ngraphs, sizeof *urls);
  uint32_t bad = 0;
  for (uint32_t i = 0; urls && i < sg->ngraphs; i++)
    urls[i] = sg->graphs[i].url;
  if (urls && gql_gw_client_new(w->loop, urls, sg->ngraphs, &w->ge->opt.client,
                                &w->probe_client, &bad) == 0)
    uv_timer_start(&w->probe_timer, on_probe_timer, 0, 0);
  free(urls);
}

bool gql_gw_executor_ready(void *ud) {
  const gql_gw_executor *ge = ud;
  return atomic_load(&ge->ready);
}

static void worker_stop(void *worker);
static void worker_free(void *worker);

static void *worker_start(void *ud, uv_loop_t *loop) {
  gql_gw_executor *ge = ud;
  gw_worker *w = calloc(1, sizeof *w);
  if (!w)
    return NULL;
  w->ge = ge;
  w->loop = loop;
  w->rng = (uint64_t)(uintptr_t)w ^ (uint64_t)uv_hrtime();
  const gql_supergraph *sg = ge->sg;
  gql_server_metrics *sm = ge->opt.metrics;
  bool ok = !sm || (w->sh = gql_metrics_shard_new(sm->m));
  if (ok)
    ok = (w->cur = gen_new(w, sg, ge->opt.headers, &ge->opt.client, NULL));
  /* the first worker probes the subgraphs for readiness */
  if (ok && !atomic_exchange(&ge->probing, true)) {
    w->prober = w->timer_open = true;
    uv_timer_init(loop, &w->probe_timer);
    w->probe_timer.data = w;
    probe_start(w, sg);
  }
  if (!ok) {
    worker_stop(w);
    uv_run(loop, UV_RUN_NOWAIT); /* the handles closed */
    worker_free(w);
    return NULL;
  }
  return w;
}

static void worker_stop(void *worker) {
  gw_worker *w = worker;
  w->stopping = true;
  if (w->timer_open) {
    w->timer_open = false;
    uv_close((uv_handle_t *)&w->probe_timer, NULL);
  }
  if (w->cur)
    gql_gw_client_close(w->cur->client);
  if (w->probe_client)
    gql_gw_client_close(w->probe_client);
}

/* The stop's deadline: the fetches still waiting on subgraphs end now
 * (their requests' clients are gone). */
static void worker_deadline(void *worker) {
  gw_worker *w = worker;
  for (gw_gen *g = w->gens; g; g = g->next)
    gql_gw_client_abort(g->client, "the gateway is stopping");
}

static void worker_free(void *worker) {
  gw_worker *w = worker;
  gen_release(w->cur); /* its client closed by worker_stop: retired */
  while (w->retired) {
    gw_retired *r = w->retired;
    w->retired = r->next;
    gql_gw_client_free(r->client);
    free(r);
  }
  gql_gw_client_free(w->probe_client);
  free(w->probe_ok);
  gql_ws_pool_free(w->ws_pool);
  free(w);
}

int gql_gw_executor_init(gql_gw_executor *e, const gql_supergraph *sg,
                         const gql_gw_serve_options *o) {
  *e = (gql_gw_executor){.sg = sg};
  atomic_init(&e->probing, false);
  atomic_init(&e->ready, sg->ngraphs == 0);
  if (o)
    e->opt = *o;
  e->ex = (gql_http_executor){.ud = e,
                              .worker_start = worker_start,
                              .worker_stop = worker_stop,
                              .worker_free = worker_free,
                              .execute = execute,
                              .generation = on_generation,
                              .worker_deadline = worker_deadline};
  return 0;
}

void gql_gw_executor_free(gql_gw_executor *e) {
  (void)e;
}
