/* A tracer and its traces: gql_tracer_new and _free (the exporter's part
 * in exporter.c), the pool of traces that a steady state reuses (no
 * allocator call per request), gql_trace_begin, set_operation (the
 * operation's memo: plan facts, record images, entry-mode answers), abort
 * and end. With collapsing on, a resolve span is made by the first call of
 * its planned field and the tracer tells the executor once per planned
 * field which later calls need a hook at all (hooks.c); spans become flat
 * records when the execution finishes (finish.c) and are handed to the
 * tracer's queue; the exporter thread makes the OTLP JSON. The trace then
 * holds nothing but its arena until gql_trace_end. */
#include "trace.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- the tracer */

/* A subscription event's trace (gql_exec_tracer.begin). */
static gql_trace *exec_begin(gql_tracer *t, const gql_trace_options *o,
                             const gql_prepared *p) {
  gql_trace *tr = gql_trace_begin(t, o);
  if (tr)
    gql_trace_set_operation(tr, p, NULL, 0);
  return tr;
}

int gql_tracer_new(const gql_tracer_config *config, gql_tracer **out) {
  *out = NULL;
  gql_tracer *t = calloc(1, sizeof *t);
  if (!t)
    return GQL_ENOMEM;
  t->exec = (gql_exec_tracer){.begin = exec_begin, .end = gql_trace_end};
  int rc = gql_tracer_start(t, config);
  if (rc < 0) {
    free(t);
    return rc;
  }
  *out = t;
  return 0;
}

void gql_tracer_free(gql_tracer *t) {
  if (!t)
    return;
  gql_tracer_stop(t);
  for (uint32_t i = 0; i < t->npool; i++)
    gql_trace_destroy(t->pool[i]);
  gql_trace *last = atomic_load(&t->slot);
  if (last)
    gql_trace_destroy(last);
  free(t);
}

/* One thread serving requests one after the other takes and gives back
 * the same trace through the slot: an atomic exchange each, no lock. */
gql_trace *gql_tracer_pool_get(gql_tracer *t) {
  gql_trace *tr =
      atomic_exchange_explicit(&t->slot, NULL, memory_order_acquire);
  if (tr)
    return tr;
  pthread_mutex_lock(&t->pool_mu);
  tr = t->npool ? t->pool[--t->npool] : NULL;
  pthread_mutex_unlock(&t->pool_mu);
  return tr;
}

void gql_tracer_pool_put(gql_tracer *t, gql_trace *tr) {
  tr = atomic_exchange_explicit(&t->slot, tr, memory_order_acq_rel);
  if (!tr)
    return;
  pthread_mutex_lock(&t->pool_mu); /* the one it displaced */
  bool ok = t->npool < TRACE_POOL;
  if (ok)
    t->pool[t->npool++] = tr;
  pthread_mutex_unlock(&t->pool_mu);
  if (!ok)
    gql_trace_destroy(tr);
}

/* ---- a trace */

static uint64_t hook_now(void *ctx) {
  return now_of(ctx);
}
#ifdef GQL_TRACE_HAVE_TSC
/* hook_now when the clock is the time-stamp counter. */
static uint64_t hook_now_tsc(void *ctx) {
  (void)ctx;
  return __rdtsc();
}
#endif

void gql_trace_options_init(gql_trace_options *o) {
  *o = (gql_trace_options){.depth = -1};
}

/* ---- public */

/* Traces are pooled by the tracer: a steady state reuses their arena and
 * buffer and makes no allocator call per request. */
gql_trace *gql_trace_begin(gql_tracer *t, const gql_trace_options *o) {
  gql_trace *tr = t ? gql_tracer_pool_get(t) : NULL;
  if (tr) {
    tr->scratch.len = 0;
  } else {
    if (!(tr = malloc(sizeof *tr)))
      return NULL;
    if (!(tr->arena = gql_arena_new(NULL))) {
      free(tr);
      return NULL;
    }
    gql_buf_init(&tr->scratch, NULL);
    tr->memo = (op_memo){0};
  }
  /* the per-request part (arena, scratch and memo are kept) */
  memset(tr, 0, offsetof(gql_trace, arena));
  tr->tracer = t;
  if (o)
    tr->o = *o;
  else
    gql_trace_options_init(&tr->o);
  if (o && o->subscriber)
    tr->sub = *o->subscriber;
  tr->tsc = t && t->clock.tsc;
  tr->hooks.pub = (gql_hooks){.execute_start = gql_trace_on_execute_start,
                              .execute_finish = gql_trace_on_execute_finish,
                              .resolve_start = gql_trace_on_resolve_start,
                              .resolve_finish = gql_trace_on_resolve_finish,
                              .ctx = tr,
                              .execute_error = gql_trace_on_execute_error,
                              .prepare_phase = gql_trace_on_prepare_phase};
  return tr;
}

void gql_trace_set_parent(gql_trace *tr, const gql_trace_context *c) {
  if (!tr || !c || !c->parent_id || !(c->trace_hi | c->trace_lo))
    return;
  tr->remote_hi = c->trace_hi;
  tr->remote_lo = c->trace_lo;
  tr->remote_parent = c->parent_id;
  char *st = gql_arena_strndup(tr->arena, c->tracestate, c->tracestate_len);
  tr->remote_state = st ? (gql_str){st, c->tracestate_len} : GQL_STR("");
}

/* The trace id and span id base drawn now (as gql_trace_queue_open draws
 * them: the Unix second, then random) and kept for the spans. */
static void fix_ids(gql_trace *tr) {
  if (tr->ids_fixed)
    return;
  uint64_t now =
      tr->tracer
          ? gql_trace_clock_to_ns(&tr->tracer->clock,
                                  gql_trace_clock_now(&tr->tracer->clock))
          : 0;
  uint64_t rng = (uint64_t)(uintptr_t)tr ^ now ^ 0x9e3779b97f4a7c15u;
  uint64_t z = gql_trace_random(&rng), w = z * 0xd6e8feb86659fd93u;
  w ^= w >> 32;
  tr->id_hi = ((now / 1000000000u) << 32) | (w & 0xffffffffu);
  tr->id_lo = z;
  tr->id_base = w * 0x9e3779b97f4a7c15u ^ (z >> 29);
  tr->ids_fixed = true;
}

static char *hex64(char *w, uint64_t v) {
  static const char hex[] = "0123456789abcdef";
  for (int i = 0; i < 16; i++)
    w[i] = hex[(v >> (60 - 4 * i)) & 15];
  return w + 16;
}

void gql_trace_id(gql_trace *tr, char out[33]) {
  out[0] = 0;
  if (!tr)
    return;
  fix_ids(tr);
  bool remote = tr->remote_parent != 0;
  hex64(hex64(out, remote ? tr->remote_hi : tr->id_hi),
        remote ? tr->remote_lo : tr->id_lo);
  out[32] = 0;
}

/* ---- an embedder's spans (a gateway's request, plan and fetches) */

static trace_span *span_of(gql_trace *tr, uint32_t span) {
  return tr && span && span <= tr->nspans && !tr->queued ? tr->spans[span - 1]
                                                         : NULL;
}

uint32_t gql_trace_span_start(gql_trace *tr, const char *name,
                              gql_trace_span_kind kind, uint32_t parent) {
  if (!tr || tr->queued || !name)
    return 0;
  static const uint8_t kinds[] = {SPAN_INTERNAL, SPAN_SERVER, SPAN_CLIENT};
  trace_span *s =
      gql_trace_span_new(tr, kinds[(unsigned)kind < 3 ? kind : 0],
                         gql_trace_arena_str(tr, name, strlen(name)));
  if (!s)
    return 0;
  s->up = span_of(tr, parent);
  return s->idx + 1;
}

void gql_trace_span_tag(gql_trace *tr, uint32_t span, const char *key,
                        const char *value, size_t len) {
  trace_span *s = span_of(tr, span);
  if (s && key)
    gql_trace_attr_add(tr, s, gql_trace_arena_str(tr, key, strlen(key)),
                       gql_trace_arena_str(tr, value, value ? len : 0));
}

void gql_trace_span_error(gql_trace *tr, uint32_t span, const char *message) {
  trace_span *s = span_of(tr, span);
  if (s && !s->error_type) {
    s->error_type = "Error";
    s->error = gql_trace_arena_str(tr, message, message ? strlen(message) : 0);
  }
}

void gql_trace_span_end(gql_trace *tr, uint32_t span) {
  trace_span *s = span_of(tr, span);
  if (s && !s->ended) {
    s->end = now_of(tr);
    s->ended = true;
  }
}

gql_str gql_trace_tracestate(const gql_trace *tr) {
  return tr && tr->remote_parent && tr->remote_state.len ? tr->remote_state
                                                         : GQL_STR("");
}

void gql_trace_span_traceparent(gql_trace *tr, uint32_t span,
                                char out[GQL_TRACEPARENT_LEN + 1]) {
  out[0] = 0;
  trace_span *s = span_of(tr, span);
  if (!s)
    return;
  fix_ids(tr);
  bool remote = tr->remote_parent != 0;
  char *w = out;
  memcpy(w, "00-", 3);
  w = hex64(w + 3, remote ? tr->remote_hi : tr->id_hi);
  w = hex64(w, remote ? tr->remote_lo : tr->id_lo);
  *w++ = '-';
  w = hex64(w, gql_trace_span_id(tr->id_base, s->idx));
  memcpy(w, "-01", 4);
}

static bool memo_matches(const op_memo *m, const gql_prepared *p) {
  return m->p == p && m->root == (const void *)p->root &&
         m->schema == (const void *)p->s && m->op == (const void *)p->op &&
         m->n == p->nplanned && m->text_len == p->text.len && m->text &&
         memcmp(m->text, p->text.ptr, p->text.len) == 0;
}

/* The planned fields' record blobs (see op_memo); none when out of
 * memory. */
static void memo_blobs(op_memo *m, const gql_prepared *p) {
  size_t total = 0;
  gql_str none = GQL_STR("");
  for (uint32_t k = 0; k < m->n; k++) {
    const plan_info *pi = &m->plan[k];
    const gql_field *f = pi->pf ? pi->pf->field : NULL;
    if (f)
      total += gql_otlp_plan_blob(NULL, pi->key_is_name, pi->lists, f->name,
                                  none, (gql_str){f->type.mods, f->type.nmods},
                                  pi->pf->key) +
               p->s->types[f->type.type].name.len;
  }
  char *blobs = NULL;
  uint32_t *off = NULL;
  if (total < UINT32_MAX - 16) {
    blobs = realloc(m->blobs, total + 16);
    if (blobs)
      m->blobs = blobs;
    off = realloc(m->blob_off, sizeof *off * (m->n + 1));
    if (off)
      m->blob_off = off;
  }
  if (!blobs || !off) {
    free(m->blobs);
    free(m->blob_off);
    m->blobs = NULL;
    m->blob_off = NULL;
    return;
  }
  uint32_t at = 0;
  for (uint32_t k = 0; k < m->n; k++) {
    const plan_info *pi = &m->plan[k];
    const gql_field *f = pi->pf ? pi->pf->field : NULL;
    off[k] = at;
    if (f)
      at += (uint32_t)gql_otlp_plan_blob(
          blobs + at, pi->key_is_name, pi->lists, f->name,
          p->s->types[f->type.type].name,
          (gql_str){f->type.mods, f->type.nmods}, pi->pf->key);
  }
  off[m->n] = at;
  memset(blobs + at, 0, 16);
}

/* Remembers the operation and its plan facts (tr->plan); on an allocation
 * failure, or for a document over MEMO_MAX bytes (a pooled trace keeps its
 * copy), remembers nothing. */
enum { MEMO_MAX = 65536 };

static void memo_keep(gql_trace *tr, const gql_prepared *p) {
  op_memo *m = &tr->memo;
  m->p = NULL;
  m->sig = GQL_STR("");
  if (p->text.len > MEMO_MAX || tr->nowners > MEMO_MAX)
    return;
  char *text = realloc(m->text, p->text.len + 1);
  if (!text)
    return;
  m->text = text;
  plan_info *plan = realloc(m->plan, sizeof *plan * (tr->nowners + 1));
  if (!plan)
    return;
  m->plan = plan;
  memcpy(text, p->text.ptr, p->text.len);
  memcpy(plan, tr->plan, sizeof *plan * tr->nowners);
  *m = (op_memo){.p = NULL,
                 .root = p->root,
                 .schema = p->s,
                 .op = p->op,
                 .text = text,
                 .text_len = p->text.len,
                 .n = tr->nowners,
                 .plan = plan,
                 .blobs = m->blobs,
                 .blob_off = m->blob_off,
                 .sig = GQL_STR(""),
                 .answers = m->answers,
                 .exec_img = m->exec_img,
                 .exec_cap = m->exec_cap,
                 .refs = m->refs};
  memo_blobs(m, p);
  if (tr->tracer && m->blobs && m->blob_off) {
    uint32_t total = m->blob_off[m->n];
    char *img = malloc(total + 1);
    if (img) {
      memcpy(img, m->blobs, total);
      for (uint32_t k = 0; k < m->n; k++) {
        uint32_t n = m->blob_off[k + 1] - m->blob_off[k];
        if (n >= 4) {
          n -= 4;
          memcpy(img + m->blob_off[k], &n, 4);
        }
      }
      m->pinned = gql_tracer_pin(tr->tracer, p, img, total);
      free(img);
    }
  }
  rec_ref *refs;
  if (m->pinned && (refs = realloc(m->refs, sizeof *refs * (m->n + 1)))) {
    m->refs = refs;
    for (uint32_t k = 0; k < m->n; k++) {
      uint32_t head = 0, n = m->blob_off[k + 1] - m->blob_off[k];
      if (n >= 4)
        memcpy(&head, m->blobs + m->blob_off[k], 4);
      refs[k] = (rec_ref){n >= 4 ? m->pinned + m->blob_off[k] : NULL,
                          gql_otlp_ref_head(head), m->plan[k].parent};
    }
    m->refs_ok = true;
  }
  m->p = p;
}

static uint16_t list_levels(gql_type_ref t) {
  uint16_t n = 0;
  for (uint32_t i = 0; i < t.nmods; i++)
    n += t.mods[i] == 'L';
  return n;
}

/* Each planned field's parent, list levels above and depth (bounded like
 * the plan). */
static void plan_walk(gql_trace *tr, const plan_set *ps, uint32_t parent,
                      uint16_t lists, uint32_t depth, bool shared) {
  if (!ps || depth >= 10000)
    return;
  for (uint32_t i = 0; i < ps->nfields; i++) {
    const plan_field *f = &ps->fields[i];
    if (f->ordinal < tr->nowners)
      tr->plan[f->ordinal] =
          (plan_info){f,
                      parent,
                      lists,
                      (uint16_t)(depth + 1),
                      f->leaf == LEAF_NONE, /* object, interface, union */
                      f->field && gql_str_eq(f->key, f->field->name),
                      shared};
    /* planned fields of one set have distinct keys; sets of different
     * concrete types (and what is below them) may share paths */
    for (uint32_t j = 0; j < f->nsubs; j++)
      plan_walk(tr, f->subs[j], f->ordinal, list_levels(f->type), depth + 1,
                shared || f->nsubs > 1);
  }
}

void gql_trace_set_operation(gql_trace *tr, const gql_prepared *p,
                             const char *variables_json, size_t len) {
  if (!tr)
    return;
  tr->p = p;
  size_t n = p ? p->nplanned : 0;
  /* owners, stamps, starts, order and calls in one block: one arena call,
   * one memset */
  size_t st_off = (sizeof *tr->owners * n + 7) & ~(size_t)7;
  size_t starts_off = st_off + sizeof *tr->stamps * n;
  size_t order_off = starts_off + sizeof *tr->starts * n;
  size_t calls_off = order_off + sizeof *tr->order * 2 * n;
  char *blk = n ? gql_arena_alloc(tr->arena, calls_off + n) : NULL;
  uint64_t *stamps = NULL, *starts = NULL;
  uint8_t *calls = NULL;
  if (blk) {
    memset(blk, 0, order_off);
    tr->owners = (trace_span **)(void *)blk;
    stamps = (uint64_t *)(void *)(blk + st_off);
    starts = (uint64_t *)(void *)(blk + starts_off);
    tr->order = (uint32_t *)(void *)(blk + order_off);
    calls = (uint8_t *)(blk + calls_off);
    tr->nowners = (uint32_t)n;
  }
  tr->vars_json = variables_json;
  tr->vars_len = len;
  tr->memo_hit = p && memo_matches(&tr->memo, p);
  bool want_plan = tr->nowners && !tr->o.no_collapse && tr->o.depth != 0;
  if (want_plan && tr->memo_hit) {
    tr->plan = tr->memo.plan;
    tr->blobs = tr->memo.blobs;
    tr->blob_off = tr->memo.blob_off;
    tr->pinned = tr->memo.pinned;
    tr->refs = tr->memo.refs_ok ? tr->memo.refs : NULL;
  } else if (want_plan && (tr->plan = gql_arena_alloc(
                               tr->arena, sizeof *tr->plan * tr->nowners))) {
    for (uint32_t i = 0; i < tr->nowners; i++) /* a field the walk misses */
      tr->plan[i] =
          (plan_info){NULL, NO_PARENT, 0, UINT16_MAX, false, false, true};
    plan_walk(tr, p->root, NO_PARENT, 0, 0, false);
    memo_keep(tr, p);
    if (tr->memo.p == p) { /* kept: its blobs serve this request too */
      tr->blobs = tr->memo.blobs;
      tr->blob_off = tr->memo.blob_off;
      tr->pinned = tr->memo.pinned;
      tr->refs = tr->memo.refs_ok ? tr->memo.refs : NULL;
    }
  }
  /* Per-call hooks are needed for every call only by subscribers that see
   * every call and without collapsing (a span per call). */
  bool every =
      tr->sub.resolve_start || tr->sub.resolve_update || tr->o.no_collapse;
  if (tr->nowners && !every && (tr->calls = calls)) {
    /* the first call of each planned field asks; depth 0: none */
    memset(tr->calls, tr->o.depth == 0 ? 0 : GQL_HOOK_START | GQL_HOOK_FINISH,
           tr->nowners);
    tr->hooks.calls = tr->calls;
    tr->hooks.ncalls = tr->nowners;
    if (tr->o.depth != 0) { /* depth 0: no resolve span to end */
      tr->stamps = stamps;  /* zeroed */
      tr->hooks.stamps = tr->stamps;
      tr->hooks.last_stamps = true; /* the spans' ends: running maxima */
      tr->hooks.now = hook_now;
#ifdef GQL_TRACE_HAVE_TSC
      if (tr->tsc) {
        tr->hooks.now = hook_now_tsc;
        tr->hooks.now_tsc = true;
      }
#endif
      tr->lean = tr->plan && !tr->o.nvariables;
      /* entry mode: gql_trace_finish_lean's conditions, known here */
      if (tr->lean && tr->blob_off && !tr->aborted && !tr->o.source &&
          !tr->sub.resolve_finish && !tr->sub.execute_finish) {
        tr->entry = true;
        tr->starts = starts; /* zeroed */
        tr->hooks.starts = starts;
        op_memo *m = &tr->memo;
        if (tr->memo_hit && m->answers_ok && m->answers_depth == tr->o.depth) {
          memcpy(tr->calls, m->answers, tr->nowners);
        } else {
          for (uint32_t k = 0; k < tr->nowners; k++)
            tr->calls[k] = gql_trace_entry_answer(tr, k);
          m->answers_ok = false;
          uint8_t *a;
          if (m->p == p && (a = realloc(m->answers, tr->nowners))) {
            memcpy(a, tr->calls, tr->nowners);
            m->answers = a;
            m->answers_depth = tr->o.depth;
            m->answers_ok = true;
          }
        }
      }
    }
  }
}

void gql_trace_abort(gql_trace *tr) {
  if (!tr)
    return;
  tr->aborted = true;
  if (tr->calls) /* the next call's resolve_start reports it */
    memset(tr->calls, GQL_HOOK_START | GQL_HOOK_FINISH, tr->nowners);
}

void gql_trace_destroy(gql_trace *tr) {
  free(tr->memo.text);
  free(tr->memo.plan);
  free(tr->memo.blobs);
  free(tr->memo.blob_off);
  free(tr->memo.answers);
  free(tr->memo.exec_img);
  free(tr->memo.refs);
  gql_buf_free(&tr->scratch);
  gql_arena_free(tr->arena);
  free(tr);
}

void gql_trace_end(gql_trace *tr) {
  if (!tr)
    return;
  gql_trace_entry_leave(tr);       /* an execution that did not finish */
  if (!tr->queued && tr->nspans) { /* no execution: parse, validate, an
                                    * embedder's spans (open ones end now) */
    uint64_t now = now_of(tr);
    for (uint32_t i = 0; i < tr->nspans; i++)
      if (tr->spans[i]->kind >= SPAN_INTERNAL && !tr->spans[i]->ended) {
        tr->spans[i]->end = now;
        tr->spans[i]->ended = true;
      }
    gql_trace_queue_spans(tr, now);
  }
  gql_arena_reset(tr->arena);
  if (tr->scratch.cap > 65536) { /* do not keep a huge one */
    gql_buf_free(&tr->scratch);
    gql_buf_init(&tr->scratch, NULL);
  }
  if (tr->tracer)
    gql_tracer_pool_put(tr->tracer, tr);
  else
    gql_trace_destroy(tr);
}
