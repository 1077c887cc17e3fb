/* Subscriptions (the spec's Subscribe): CreateSourceEventStream runs the
 * root field's resolver, which gives a stream (gql_out_stream); then
 * MapSourceToResponseEvent executes the operation once per event, with
 * the event as the root field's value (gql_exec_sub_resolver).
 *
 * Memory: an event's execution runs in the subscription's arena and
 * output, reset per event, so a steady stream makes no allocator call
 * beyond the queue's. An execution that pends (a resolver under the root
 * field returns pending) is given that arena and output: the executor
 * frees them once it has delivered (it reads them after on_done), and the
 * next event gets fresh ones.
 *
 * Events wait in a bounded queue (as JSON text) while the subscriber is
 * paused, while an execution pends, and before the subscribe phase has
 * finished. Callbacks may free the subscription: the free is deferred to
 * the outermost entry point that is still running. */
#include "executor.h"

#include <stdio.h>

typedef struct queued {
  struct queued *next;
  size_t len;
  char json[];
} queued;

/* An execution's memory: the arena (also holding the event's value) and
 * the output, whose struct lives in the arena. */
typedef struct slot {
  gql_arena *arena;
  gql_output *out;
} slot;

struct gql_subscription {
  const gql_prepared *p;
  void *context;
  void (*on_event)(void *, const char *, size_t, bool);
  void (*on_end)(void *, const char *, size_t);
  void *ud;
  uint32_t max_queue;
  gql_overflow overflow;
  gql_arena *vars_arena; /* the variables, parsed once */
  const gql_json_value *vars;
  slot cur; /* for the next execution (arena NULL: make one) */
  gql_stream_source src;
  bool has_src;
  queued *head, *tail;
  uint32_t nq;
  uint64_t dropped;
  bool started;       /* the subscribe phase made a stream */
  bool paused, busy;  /* busy: an execution is under way */
  bool running;       /* inside gql_exec_execute_sub */
  bool ended;         /* gql_stream_end or _fail: no more pushes */
  bool finished;      /* on_end was called (or the start failed) */
  bool dying;         /* freed from inside a callback */
  bool pending_start; /* the subscribe phase pended */
  bool subscribed;    /* the subscribe phase's response came */
  char *end_errors;   /* gql_stream_fail's errors, until on_end */
  size_t end_len;
  unsigned depth; /* entry points running */
  gql_tracer *tracer;
  const gql_trace_options *trace_options;
  gql_trace *pended_trace; /* of an execution that pended: ended later */
};

/* gql_stream is the subscription seen from its source. */
static gql_subscription *of(gql_stream *s) {
  return (gql_subscription *)(void *)s;
}

static void slot_free(slot *sl) {
  if (sl->out)
    gql_output_free(sl->out);
  gql_arena_free(sl->arena);
  *sl = (slot){0};
}

static void drop_queue(gql_subscription *s) {
  while (s->head) {
    queued *q = s->head;
    s->head = q->next;
    free(q);
  }
  s->tail = NULL;
  s->nq = 0;
}

/* The tracer's end of a trace (hooks.h): the executor calls nothing of
 * src/trace. */
static void trace_end(gql_subscription *s, gql_trace *tr) {
  if (tr)
    gql_exec_tracer_of(s->tracer)->end(tr);
}

static void destroy(gql_subscription *s) {
  trace_end(s, s->pended_trace);
  drop_queue(s);
  slot_free(&s->cur);
  gql_arena_free(s->vars_arena);
  free(s->end_errors);
  free(s);
}

static void enter(gql_subscription *s) {
  s->depth++;
}

/* false when the subscription is gone (freed during a callback). */
static bool leave(gql_subscription *s) {
  if (--s->depth == 0 && s->dying) {
    destroy(s);
    return false;
  }
  return !s->dying;
}

/* The source is told once, unless its stream ended by itself. */
static void cancel_source(gql_subscription *s) {
  if (s->has_src && s->src.cancel) {
    s->has_src = false;
    s->src.cancel(s->src.ud);
  }
  s->has_src = false;
}

static void finish(gql_subscription *s, const char *errors, size_t len) {
  if (s->finished)
    return;
  s->finished = true;
  drop_queue(s);
  if (s->on_end)
    s->on_end(s->ud, errors, len);
}

/* ------------------------------------------------------------ events */

static void drain(gql_subscription *s);

/* An event's response. */
static void event_done(void *ud, const char *json, size_t len,
                       bool has_errors) {
  gql_subscription *s = ud;
  bool async = !s->running; /* a pended execution completes */
  s->busy = false;
  s->depth++;
  s->on_event(s->ud, json, len, has_errors);
  if (async && !s->dying)
    drain(s);
  if (--s->depth == 0 && s->dying)
    destroy(s); /* the executor's memory is its own (see run_event) */
}

static bool slot_ready(gql_subscription *s) {
  slot *sl = &s->cur;
  if (sl->arena) {
    /* the output's struct is in the arena, its bytes are not: kept */
    gql_output keep = *sl->out;
    gql_arena_reset(sl->arena); /* keeps one block: no allocator call */
    sl->out = gql_arena_alloc(sl->arena, sizeof *sl->out);
    if (sl->out) {
      *sl->out = keep;
      return true;
    }
    gql_output_free(&keep);
    gql_arena_free(sl->arena);
    *sl = (slot){0};
    return false;
  }
  sl->arena = gql_arena_new(NULL);
  sl->out = sl->arena ? gql_arena_alloc(sl->arena, sizeof *sl->out) : NULL;
  if (!sl->out) {
    gql_arena_free(sl->arena);
    *sl = (slot){0};
    return false;
  }
  *sl->out = (gql_output){0};
  return true;
}

/* Executes one event now. The value must live in s->cur.arena or outlive
 * the execution. */
static int run_event(gql_subscription *s, const gql_json_value *event) {
  exec_sub sub = {.event_phase = true, .event = event, .sub = s};
  gql_trace *tr = NULL;
  if (s->tracer) {
    /* the last pended execution has completed (nothing runs now) */
    trace_end(s, s->pended_trace);
    s->pended_trace = NULL;
    tr =
        gql_exec_tracer_of(s->tracer)->begin(s->tracer, s->trace_options, s->p);
  }
  gql_execute_params prm = {.variables = s->vars,
                            .context = s->context,
                            .arena = s->cur.arena,
                            .output = s->cur.out,
                            .trace = tr,
                            .on_done = event_done,
                            .ud = s};
  s->busy = true; /* until event_done */
  s->running = true;
  int rc = gql_exec_execute_sub(s->p, &prm, &sub);
  s->running = false;
  if (rc < 0)
    s->busy = false;
  if (tr && rc == 0 && s->busy)
    s->pended_trace = tr; /* the executor still runs with it */
  else
    trace_end(s, tr);
  if (rc == 0 && s->busy) {
    /* pended (gql_execute returns 0 either way; event_done has not run):
     * the execution takes the slot (its executor frees it after
     * delivering) and forgets `sub`, which this frame holds */
    sub.ctx->owns |= OWN_ARENA | OWN_OUTPUT;
    sub.ctx->sub = NULL;
    s->cur = (slot){0};
  }
  return rc < 0 ? rc : 0;
}

/* Parses a queued or pushed JSON text into the execution's arena (kept
 * for the execution: pending fields may read it) and runs it. */
static int run_json(gql_subscription *s, const char *json, size_t len) {
  if (!slot_ready(s))
    return GQL_ENOMEM;
  char *copy = gql_arena_alloc(s->cur.arena, len + 1);
  if (!copy)
    return GQL_ENOMEM;
  memcpy(copy, json, len);
  gql_json_value *v;
  if (gql_json_parse(s->cur.arena, copy, len, NULL, &v, NULL) < 0)
    return GQL_EJSON;
  return run_event(s, v);
}

/* Delivers queued events while the subscriber takes them. */
static void drain(gql_subscription *s) {
  while (s->head && !s->paused && !s->busy && !s->dying && !s->finished) {
    queued *q = s->head;
    s->head = q->next;
    if (!s->head)
      s->tail = NULL;
    s->nq--;
    run_json(s, q->json, q->len);
    free(q);
  }
  if (s->ended && !s->head && !s->busy && !s->dying && !s->finished)
    finish(s, s->end_errors, s->end_len);
}

static bool can_run_now(const gql_subscription *s) {
  return s->started && !s->paused && !s->busy && !s->head && !s->finished;
}

/* Queues JSON text; on overflow, drops the oldest or closes. */
static int enqueue(gql_subscription *s, const char *json, size_t len) {
  bool dropped = false;
  if (s->nq >= s->max_queue) {
    if (s->overflow == GQL_OVERFLOW_CLOSE) {
      static const char err[] =
          "[{\"message\":\"The subscriber did not keep up: too many events "
          "were waiting.\"}]";
      s->ended = true;
      cancel_source(s);
      finish(s, err, sizeof err - 1);
      return GQL_ELIMIT;
    }
    queued *old = s->head;
    s->head = old->next;
    if (!s->head)
      s->tail = NULL;
    s->nq--;
    free(old);
    s->dropped++;
    dropped = true;
  }
  queued *q = malloc(sizeof *q + len);
  if (!q)
    return GQL_ENOMEM;
  q->next = NULL;
  q->len = len;
  memcpy(q->json, json, len);
  if (s->tail)
    s->tail->next = q;
  else
    s->head = q;
  s->tail = q;
  s->nq++;
  return dropped ? GQL_ELIMIT : 0;
}

int gql_stream_push_json(gql_stream *st, const char *json, size_t len) {
  gql_subscription *s = of(st);
  if (!s || s->ended || s->finished || s->dying)
    return GQL_EINVAL;
  enter(s);
  int rc = can_run_now(s) ? run_json(s, json, len) : enqueue(s, json, len);
  leave(s);
  return rc;
}

int gql_stream_push(gql_stream *st, const gql_value *event) {
  gql_subscription *s = of(st);
  if (!s || s->ended || s->finished || s->dying)
    return GQL_EINVAL;
  enter(s);
  int rc;
  if (can_run_now(s)) {
    /* the caller's value, as is: it outlives a synchronous execution; a
     * pending one gets a copy (below) */
    rc = slot_ready(s) ? 0 : GQL_ENOMEM;
    gql_str text = {0};
    if (!rc && gql_value_print(s->cur.arena, event, &text) < 0)
      rc = GQL_ENOMEM;
    if (!rc) {
      gql_json_value *v;
      rc = gql_json_parse(s->cur.arena, text.ptr, text.len, NULL, &v, NULL);
      if (!rc)
        rc = run_event(s, v);
    }
  } else {
    gql_arena *a = gql_arena_new(NULL);
    gql_str text = {0};
    rc = a && gql_value_print(a, event, &text) == 0 ? 0 : GQL_ENOMEM;
    if (!rc)
      rc = enqueue(s, text.ptr, text.len);
    gql_arena_free(a);
  }
  leave(s);
  return rc;
}

void gql_stream_end(gql_stream *st) {
  gql_subscription *s = of(st);
  if (!s || s->ended || s->dying)
    return;
  s->ended = true;
  s->has_src = false; /* it ended by itself: no cancel */
  enter(s);
  if (s->started)
    drain(s);
  leave(s);
}

void gql_stream_fail(gql_stream *st, const char *message) {
  gql_subscription *s = of(st);
  if (!s || s->ended || s->dying)
    return;
  s->ended = true;
  s->has_src = false;
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_puts(&b, "[{\"message\":");
  gql_json_write_string(&b, gql_cstr(message ? message : "Unknown error."));
  gql_buf_puts(&b, "}]");
  if (!b.failed) {
    s->end_errors = b.data;
    s->end_len = b.len;
  } else {
    gql_buf_free(&b);
  }
  enter(s);
  drop_queue(s);
  if (s->started && !s->busy)
    finish(s, s->end_errors, s->end_len);
  leave(s);
}

/* ------------------------------------------------------------ subscribing */

/* The subscribe phase's response: a stream and no error starts the
 * subscription; else the errors are the answer, as graphql-js's subscribe()
 * answers {errors} (no data), and the subscription ends. */
static void subscribed(void *ud, const char *json, size_t len,
                       bool has_errors) {
  exec_sub *sub = ud;
  gql_subscription *s = sub->sub;
  bool async = !s->running;
  s->subscribed = true;
  if (sub->stream && sub->source.cancel) {
    s->src = sub->source;
    s->has_src = true;
  }
  if (async && s->dying) { /* freed while the subscribe phase pended */
    cancel_source(s);
    destroy(s);
    return;
  }
  s->depth++;
  if (sub->stream && !has_errors) {
    s->started = true;
    if (async && !s->dying)
      drain(s); /* else once gql_subscribe returns */
    if (--s->depth == 0 && s->dying)
      destroy(s);
    return;
  }
  gql_buf b;
  gql_buf_init(&b, NULL);
  if (!has_errors) {
    gql_buf_puts(&b, "{\"errors\":[{\"message\":\"Subscription field must "
                     "return Async Iterable. Received: undefined.\"}]}");
  } else {
    /* {"errors":[...],"data":...}: the data (null, or the field's null)
     * goes */
    const char *cut = NULL;
    for (size_t i = len; i-- > 8;)
      if (memcmp(json + i - 8, ",\"data\":", 8) == 0) {
        cut = json + i - 8;
        break;
      }
    gql_buf_append(&b, json, cut ? (size_t)(cut - json) : len);
    if (cut)
      gql_buf_putc(&b, '}');
  }
  if (!b.failed)
    s->on_event(s->ud, b.data, b.len, true);
  gql_buf_free(&b);
  if (!s->dying) {
    cancel_source(s);
    s->ended = true;
    finish(s, NULL, 0);
  }
  if (--s->depth == 0 && s->dying)
    destroy(s); /* freed while subscribing (the root field pended) */
}

int gql_subscribe(const gql_prepared *p, const gql_subscribe_params *params,
                  gql_subscription **out) {
  *out = NULL;
  if (!p || !params || !params->on_event)
    return GQL_EINVAL;
  if (p->kind != GQL_OP_SUBSCRIPTION)
    return GQL_EINVAL;
  gql_subscription *s = calloc(1, sizeof *s);
  if (!s)
    return GQL_ENOMEM;
  s->p = p;
  s->context = params->context;
  s->on_event = params->on_event;
  s->on_end = params->on_end;
  s->ud = params->ud;
  s->max_queue = params->max_queue ? params->max_queue : 64;
  s->tracer = params->tracer;
  s->trace_options = params->trace_options;
  s->overflow = params->overflow;
  s->vars_arena = gql_arena_new(NULL);
  if (!s->vars_arena) {
    free(s);
    return GQL_ENOMEM;
  }
  /* the variables, kept for every event (coerced per execution) */
  int rc = 0;
  if (params->variables) {
    gql_str text;
    gql_json_value *v;
    rc = gql_value_print(s->vars_arena, params->variables, &text);
    if (!rc)
      rc = gql_json_parse(s->vars_arena, text.ptr, text.len, NULL, &v, NULL);
    s->vars = rc ? NULL : v;
  } else if (params->variables_json) {
    char *copy = gql_arena_alloc(s->vars_arena, params->variables_len + 1);
    gql_json_value *v = NULL;
    if (copy) {
      memcpy(copy, params->variables_json, params->variables_len);
      /* invalid JSON: the subscribe phase answers the error */
      if (gql_json_parse(s->vars_arena, copy, params->variables_len, NULL, &v,
                         NULL) == 0)
        s->vars = v;
    } else {
      rc = GQL_ENOMEM;
    }
  }
  if (rc == GQL_ENOMEM) {
    destroy(s);
    return rc;
  }
  exec_sub *sub = gql_arena_alloc(s->vars_arena, sizeof *sub);
  if (!sub) {
    destroy(s);
    return GQL_ENOMEM;
  }
  *sub = (exec_sub){.sub = s};
  gql_execute_params prm = {.variables = s->vars,
                            .variables_json =
                                s->vars ? NULL : params->variables_json,
                            .variables_len = params->variables_len,
                            .root_value = params->root_value,
                            .context = s->context,
                            .on_done = subscribed,
                            .ud = sub};
  s->depth++;
  s->running = true;
  rc = gql_exec_execute_sub(p, &prm, sub);
  s->running = false;
  if (rc < 0) {
    s->depth--;
    destroy(s);
    return rc;
  }
  if (rc == 0 && !s->subscribed) {
    /* the root field pended (gql_execute returns 0 either way): the
     * subscription starts (or fails) when it completes; freed before, it
     * goes then (see subscribed) */
    s->pending_start = true;
    sub->ctx->sub = sub; /* in vars_arena: lives with s */
  }
  *out = s;
  if (s->started)
    drain(s); /* events pushed from inside the resolver */
  if (--s->depth == 0 && s->dying) {
    destroy(s);
    *out = NULL;
  }
  return 0;
}

void gql_subscription_free(gql_subscription *s) {
  if (!s || s->dying)
    return;
  s->dying = true;
  drop_queue(s);
  cancel_source(s);
  if (s->depth == 0 && !(s->pending_start && !s->started && !s->finished))
    destroy(s); /* else when the subscribe phase completes */
}

void gql_subscription_pause(gql_subscription *s) {
  if (s)
    s->paused = true;
}

void gql_subscription_resume(gql_subscription *s) {
  if (!s || !s->paused || s->dying)
    return;
  s->paused = false;
  enter(s);
  drain(s);
  leave(s);
}

uint64_t gql_subscription_dropped(const gql_subscription *s) {
  return s ? s->dropped : 0;
}
