/* The gateway's request executor for the http server (see serve.h). */
#include "serve.h"

#include <stdlib.h>

typedef struct gw_worker {
  const gql_gw_executor *ge;
  uv_loop_t *loop;
  gql_gw_client *client;
  gql_gw_plan_cache *plans;
  size_t response_hint; /* the last response's size: the next buffer's */
  uint64_t rng;         /* progressive override draws */
} gw_worker;

/* One client request in flight. */
typedef struct gw_exec {
  gw_worker *w;
  gql_http_exec *req;
  const gql_gw_plan *plan;
  gql_gw_plan_ref *plan_ref; /* held until the response is written */
  gql_gw_request *gr;
  uint32_t next;    /* the first batch of the next wave */
  unsigned pending; /* fetches in flight (+1 while a wave starts) */
  char **answers;   /* subgraph answers taken from the client, per batch:
                       the merged tree points into them until finish */
} gw_exec;

typedef struct gw_fetch {
  gw_exec *e;
  uint32_t batch;
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

static void finish(gw_exec *e) {
  gql_buf out;
  gql_buf_init(&out, NULL);
  gql_buf_reserve(&out, e->w->response_hint + 256);
  int rc = gql_gw_request_response(e->gr, &out);
  if (!out.failed)
    e->w->response_hint = out.len < ((size_t)1 << 20) ? out.len : 0;
  for (uint32_t i = 0; i < e->plan->nbatches; i++)
    free(e->answers[i]);
  gql_gw_plan_cache_release(e->plan_ref);
  if (rc || out.failed)
    respond_error(e->req, gql_strerror(rc ? rc : GQL_ENOMEM));
  else
    gql_http_exec_done(e->req, out.data, out.len);
  gql_buf_free(&out);
}

static void run(gw_exec *e);

static void on_fetch(void *ud, int status, const char *why, const char *json,
                     size_t len) {
  gw_fetch *f = ud;
  gw_exec *e = f->e;
  if (status == 0) {
    /* The merged tree may point into the text: it is taken from the
     * client (freed by finish) or else copied into the request's arena. */
    char *text = gql_gw_client_take_answer(e->w->client);
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

/* Starts the next wave once the previous one has been merged; writes the
 * response after the last. */
static void run(gw_exec *e) {
  const gql_gw_plan *plan = e->plan;
  gql_buf body;
  gql_buf_init(&body, NULL);
  while (!e->pending) {
    if (e->next >= plan->nbatches) {
      gql_buf_free(&body);
      finish(e);
      return;
    }
    uint32_t level = plan->batches[e->next].level;
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
      f->e = e;
      f->batch = i;
      e->pending++;
      rc = gql_gw_client_post(e->w->client, plan->batches[i].graph, body.data,
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
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_puts(&b, "{\"errors\":[");
  for (uint32_t i = 0; i < errors.count; i++) {
    gql_errors one = {.items = &errors.items[i], .count = 1};
    gql_str e; /* {"errors":[{...}]}: the {... without its } */
    if (gql_errors_response(&one, req->arena, &e) < 0 || e.len < 14) {
      b.failed = true;
      break;
    }
    if (i)
      gql_buf_putc(&b, ',');
    gql_buf_append(&b, e.ptr + 11, e.len - 14);
    gql_buf_puts(&b, ",\"extensions\":{\"code\":"
                     "\"VALIDATION_INVALID_TYPE_VARIABLE\"}}");
  }
  gql_buf_puts(&b, "]}");
  if (b.failed)
    respond_error(req, "Out of memory.");
  else
    gql_http_exec_done(req, b.data, b.len);
  gql_buf_free(&b);
  return false;
}

static int execute(void *worker, gql_http_exec *req) {
  gw_worker *w = worker;
  const gql_value *variables;
  if (!coerce_variables(req, &variables))
    return 0;
  const char *err = NULL;
  const gql_gw_plan *plan = NULL;
  gql_gw_plan_ref *ref = NULL;
  int rc = gql_gw_plan_cache_get(w->plans, req->query.ptr, req->query.len,
                                 req->operation_name, &plan, &ref, &err);
  if (!rc && plan->set) /* conditions or override labels: this request's */
    rc =
        gql_gw_plan_for(plan, variables, gql_gw_draw_labels(w->ge->sg, &w->rng),
                        req->arena, &plan, &err);
  if (rc) {
    respond_code(req, err ? err : gql_strerror(rc),
                 rc == GQL_EUNSUPPORTED ? "QUERY_PLANNING_FAILED" : NULL);
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
  char **answers = e->answers;
  *e = (gw_exec){
      .w = w, .req = req, .plan = plan, .plan_ref = ref, .answers = answers};
  memset(e->answers, 0, (plan->nbatches + 1) * sizeof *e->answers);
  rc = gql_gw_request_new(plan, variables, req->arena, &e->gr);
  if (rc) {
    gql_gw_plan_cache_release(ref);
    return rc;
  }
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
  run(e);
  return 0;
}

static void *worker_start(void *ud, uv_loop_t *loop) {
  const gql_gw_executor *ge = ud;
  gw_worker *w = calloc(1, sizeof *w);
  if (!w)
    return NULL;
  w->ge = ge;
  w->loop = loop;
  w->rng = (uint64_t)(uintptr_t)w ^ (uint64_t)uv_hrtime();
  const gql_supergraph *sg = ge->sg;
  gql_str *urls = calloc(sg->ngraphs ? sg->ngraphs : 1, sizeof *urls);
  uint32_t bad = 0;
  int rc = urls ? 0 : GQL_ENOMEM;
  for (uint32_t i = 0; urls && i < sg->ngraphs; i++)
    urls[i] = sg->graphs[i].url;
  if (!rc)
    rc = gql_gw_client_new(loop, urls, sg->ngraphs, &ge->opt.client, &w->client,
                           &bad);
  free(urls);
  if (rc) {
    if (rc == GQL_EINVAL)
      fprintf(stderr, "gql gateway: subgraph %.*s: unusable url '%.*s'\n",
              (int)sg->graphs[bad].name.len, sg->graphs[bad].name.ptr,
              (int)sg->graphs[bad].url.len, sg->graphs[bad].url.ptr);
    free(w);
    return NULL;
  }
  if (!(w->plans = gql_gw_plan_cache_new(sg, ge->opt.plan_cache_bytes))) {
    gql_gw_client_free(w->client);
    free(w);
    return NULL;
  }
  return w;
}

static void worker_stop(void *worker) {
  gw_worker *w = worker;
  gql_gw_client_close(w->client);
}

static void worker_free(void *worker) {
  gw_worker *w = worker;
  gql_gw_client_free(w->client);
  gql_gw_plan_cache_free(w->plans);
  free(w);
}

void gql_gw_executor_init(gql_gw_executor *e, const gql_supergraph *sg,
                          const gql_gw_serve_options *o) {
  *e = (gql_gw_executor){.sg = sg};
  if (o)
    e->opt = *o;
  e->ex = (gql_http_executor){.ud = e,
                              .worker_start = worker_start,
                              .worker_stop = worker_stop,
                              .worker_free = worker_free,
                              .execute = execute};
}
