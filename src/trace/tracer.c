/* One traced request: the executor's hooks make the spans. With collapsing
 * on, a resolve span is made by the first call of its planned field (parent:
 * the parent planned field's span; path: the parent's string plus ".*" per
 * list level and the key), and the tracer tells the executor once per
 * planned field which later calls need a hook at all (gql_hooks.calls, see
 * calls_needed). Spans become flat records when the execution finishes and
 * are handed to the tracer's queue; the exporter thread makes the OTLP JSON.
 * The trace then holds nothing but its arena until gql_trace_end. */
#include "context.h"
#include "trace.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define GQL_TRACE_HAVE_TSC 1
#endif

/* A path of the per-trace table (open addressing, in the arena). */
typedef struct path_slot {
  const char *ptr;
  uint32_t len;
  uint32_t idx; /* into spans */
} path_slot;

/* What the tracer needs of a planned field, from one walk of the plan. */
typedef struct plan_info {
  const plan_field *pf; /* NULL: a field the walk missed */
  uint32_t parent;      /* the parent planned field's ordinal, or NO_PARENT */
  uint16_t lists;       /* list levels between the parent field and this one */
  uint16_t depth;       /* named path segments (a root field: 1) */
  bool composite;
  bool key_is_name; /* no alias: the records need not repeat the key */
  bool shared;      /* under an abstract type: its collapsed path may be
                     * another planned field's too (see plan_span) */
} plan_info;

/* What a planned field's record by reference repeats per request: its
 * pinned image (NULL: none, the record is made another way), the head
 * (gql_otlp_ref_head) and the parent planned field's ordinal. */
typedef struct rec_ref {
  const char *ref;
  uint32_t head;
  uint32_t parent;
} rec_ref;

/* What the last operation this trace served left (the trace is pooled,
 * and one thread serving requests one after the other gets it back):
 * its plan facts and its cached signature, valid for the same operation
 * (the same prepared operation's address, plan, schema and text). */
typedef struct op_memo {
  const gql_prepared *p;
  const void *root, *schema, *op;
  char *text; /* a copy, compared */
  size_t text_len;
  uint32_t n;
  plan_info *plan; /* n entries, or NULL */
  /* per planned field, its record's blob (gql_otlp_plan_blob):
   * blobs[blob_off[k]..blob_off[k + 1]) (empty: none), 16 bytes of slack */
  char *blobs;
  uint32_t *blob_off;
  /* the blobs' image pinned in the tracer (gql_tracer_pin; each blob's
   * first 4 bytes replaced by the length of the rest), for records by
   * reference (gql_otlp_record_ref), or NULL */
  const char *pinned;
  gql_str sig; /* the tracer's cached signature (alive as long as the
                * tracer), or empty */
  /* entry mode's answers (entry_answer, n entries) for depth
   * answers_depth, when answers_ok */
  uint8_t *answers;
  int32_t answers_depth;
  bool answers_ok;
  /* the execute span's record past its times (gql_otlp_record_tail):
   * name, pinned resource and the operation's tags, the same for every
   * request of the operation with this no_signature, when exec_len */
  char *exec_img;
  size_t exec_len, exec_cap;
  uint32_t exec_head; /* its first 4 bytes: kind and flags */
  bool exec_nosig;
  /* per planned field, its record by reference's fixed parts (n entries,
   * when refs_ok: every blob pinned) */
  struct rec_ref *refs;
  bool refs_ok;
} op_memo;

enum { SPANS_INLINE = 4 };

struct gql_trace {
  gql_tracer *tracer;
  gql_trace_options o;
  gql_trace_subscriber sub;
  gql_hooks hooks;
  bool aborted;
  bool aborted_at_start;
  bool queued;
  const gql_prepared *p;
  const char *vars_json;
  size_t vars_len;
  trace_span *parse, *validate, *exec;
  trace_span **spans; /* every span, in creation order */
  uint32_t nspans, cap;
  trace_span *slab; /* spans[slab_base..cap) live here */
  uint32_t slab_base;
  trace_span **owners; /* by plan field ordinal (collapsing) */
  uint8_t *calls;      /* by plan field ordinal: hooks.calls (see below) */
  uint64_t *stamps;    /* by plan field ordinal: hooks.stamps */
  plan_info *plan;     /* by plan field ordinal (collapsing) */
  uint32_t nowners;
  path_slot *paths; /* path string → index in spans (resolve spans) */
  uint32_t npaths, paths_cap;
  bool tsc;      /* the tracer's clock is the time-stamp counter */
  bool memo_hit; /* tr->p is memo.p's operation */
  bool lean;     /* plan, calls and stamps, no variable tags (lean_first) */
  bool mixed;    /* a resolve_start took the general path (see finish_lean) */
  const char *blobs;        /* memo.blobs and blob_off when they are this */
  const uint32_t *blob_off; /* operation's, or NULL */
  const char *pinned;       /* memo.pinned then, or NULL */
  const rec_ref *refs;      /* memo.refs then, or NULL */
  /* Entry mode (see entry_answer): the resolve spans are not made during
   * the execution; the executor stamps each planned field's first call
   * into starts[ordinal] (hooks.starts), its completions into stamps, and
   * the spans become records at the finish (finish_entry), or structs
   * when the general path is needed (entry_leave). */
  bool entry;
  uint64_t *starts; /* by plan field ordinal: hooks.starts */
  gql_str *errs;    /* by plan field ordinal: the first error, or NULL */
  uint32_t *order;  /* nowners * 2: the order of first calls, positions */
  /* a trace continued from a traceparent (gql_trace_set_parent): its ids,
   * the remote parent (0: none) and tracestate (in the arena) */
  uint64_t remote_hi, remote_lo, remote_parent;
  gql_str remote_state;
  /* ---- kept across requests (gql_trace_begin clears what comes before) */
  gql_arena *arena;
  gql_buf scratch; /* the records, reused */
  op_memo memo;    /* see op_memo */
  /* the first spans and their pointers (execute, parse, validate): no
   * arena call for them (span_alloc) */
  trace_span *spans0[SPANS_INLINE];
  trace_span span0[SPANS_INLINE];
};

/* The tracer's clock, inline when it is the time-stamp counter. */
static inline uint64_t now_of(const gql_trace *tr) {
#ifdef GQL_TRACE_HAVE_TSC
  if (GQL_LIKELY(tr->tsc))
    return __rdtsc();
#endif
  return gql_tracer_now(tr->tracer);
}

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

/* Eight bytes a step (paths are tens of bytes). */
static uint32_t path_hash(const char *p, size_t n) {
  uint64_t h = (uint64_t)n * 0x9e3779b97f4a7c15u;
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdu;
  }
  if (n) {
    uint64_t w = 0;
    for (size_t i = 0; i < n; i++)
      w |= (uint64_t)(uint8_t)p[i] << (8 * i);
    h = (h ^ w) * 0xff51afd7ed558ccdu;
  }
  return (uint32_t)(h ^ (h >> 29));
}

static bool path_get(const gql_trace *tr, gql_str k, uint32_t *idx) {
  if (!tr->paths_cap)
    return false;
  uint32_t m = tr->paths_cap - 1;
  for (uint32_t h = path_hash(k.ptr, k.len) & m; tr->paths[h].ptr;
       h = (h + 1) & m)
    if (tr->paths[h].len == k.len &&
        memcmp(tr->paths[h].ptr, k.ptr, k.len) == 0) {
      *idx = tr->paths[h].idx;
      return true;
    }
  return false;
}

static void path_put(gql_trace *tr, gql_str k, uint32_t idx) {
  if ((tr->npaths + 1) * 2 > tr->paths_cap) {
    uint32_t nc = tr->paths_cap ? tr->paths_cap * 2 : 32;
    path_slot *n = gql_arena_alloc(tr->arena, sizeof *n * nc);
    if (!n)
      return;
    memset(n, 0, sizeof *n * nc);
    for (uint32_t i = 0; i < tr->paths_cap; i++) {
      path_slot *o = &tr->paths[i];
      if (!o->ptr)
        continue;
      uint32_t h = path_hash(o->ptr, o->len) & (nc - 1);
      while (n[h].ptr)
        h = (h + 1) & (nc - 1);
      n[h] = *o;
    }
    tr->paths = n;
    tr->paths_cap = nc;
  }
  uint32_t m = tr->paths_cap - 1, h = path_hash(k.ptr, k.len) & m;
  while (tr->paths[h].ptr)
    h = (h + 1) & m;
  tr->paths[h] = (path_slot){k.ptr ? k.ptr : "", (uint32_t)k.len, idx};
  tr->npaths++;
}

void gql_trace_options_init(gql_trace_options *o) {
  *o = (gql_trace_options){.depth = -1};
}

/* Spans come from slabs allocated with each growth of the span array: one
 * arena call per doubling, not one per span. */
static trace_span *span_alloc(gql_trace *tr, uint8_t kind, gql_str name) {
  if (GQL_UNLIKELY(tr->nspans == tr->cap)) {
    if (!tr->cap) { /* the trace's own */
      tr->spans = tr->spans0;
      tr->slab = tr->span0;
      tr->cap = SPANS_INLINE;
    } else {
      uint32_t nc = tr->cap * 2;
      trace_span **n =
          gql_arena_grow(tr->arena, tr->spans, tr->cap, nc, sizeof *n);
      trace_span *slab =
          gql_arena_alloc(tr->arena, sizeof *slab * (nc - tr->cap));
      if (!n || !slab)
        return NULL;
      tr->spans = n;
      tr->slab = slab;
      tr->slab_base = tr->cap;
      tr->cap = nc;
    }
  }
  trace_span *s = &tr->slab[tr->nspans - tr->slab_base];
  *s = (trace_span){.kind = kind, .name = name, .idx = tr->nspans};
  tr->spans[tr->nspans++] = s;
  return s;
}

static trace_span *span_new(gql_trace *tr, uint8_t kind, gql_str name) {
  trace_span *s = span_alloc(tr, kind, name);
  if (s)
    s->start = now_of(tr);
  return s;
}

static void attr_add(gql_trace *tr, trace_span *s, gql_str key, gql_str v) {
  trace_attr *a = gql_arena_alloc(tr->arena, sizeof *a);
  if (!a)
    return;
  *a = (trace_attr){key, v, NULL};
  if (s->attrs_last)
    s->attrs_last->next = a;
  else
    s->attrs = a;
  s->attrs_last = a;
}

static gql_str arena_str(gql_trace *tr, const char *p, size_t n) {
  char *c = gql_arena_strndup(tr->arena, p ? p : "", p ? n : 0);
  return c ? (gql_str){c, n} : GQL_STR("");
}

static void variable_tags(gql_trace *tr, trace_span *s,
                          const gql_resolve_info *info);

/* One dd.graphql.query.error event per GraphQL error. */
static void error_event(gql_trace *tr, trace_span *s, const char *message,
                        const gql_location *locs, uint32_t nlocs,
                        const char *path_json) {
  trace_event *e = gql_arena_alloc(tr->arena, sizeof *e);
  if (!e)
    return;
  *e = (trace_event){.name = "dd.graphql.query.error",
                     .type = GQL_STR("GraphQLError"),
                     .message = arena_str(tr, message, strlen(message))};
  e->time_ns = gql_tracer_to_ns(tr->tracer, now_of(tr));
  e->time_ns -= e->time_ns % 1000000; /* milliseconds, as dd-trace */
  if (nlocs && (e->locations =
                    gql_arena_alloc(tr->arena, sizeof *e->locations * nlocs))) {
    for (uint32_t i = 0; i < nlocs; i++) {
      char *l =
          gql_arena_sprintf(tr->arena, "%u:%u", locs[i].line, locs[i].column);
      e->locations[e->nlocations++] = l ? gql_cstr(l) : GQL_STR("");
    }
  }
  gql_json_value *pv;
  gql_json_error je;
  if (path_json &&
      gql_json_parse(tr->arena, path_json, strlen(path_json), NULL, &pv, &je) ==
          0 &&
      pv->kind == GQL_JSON_ARRAY) {
    e->path =
        gql_arena_alloc(tr->arena, sizeof *e->path * (pv->array.count + 1));
    for (size_t i = 0; e->path && i < pv->array.count; i++) {
      const gql_json_value *it = &pv->array.items[i];
      if (it->kind == GQL_JSON_STRING) {
        e->path[e->npath++] = arena_str(tr, it->string.ptr, it->string.len);
      } else {
        char *n = gql_arena_sprintf(tr->arena, "%lld", (long long)it->number.i);
        e->path[e->npath++] = n ? gql_cstr(n) : GQL_STR("");
      }
    }
  }
  if (s->events_last)
    s->events_last->next = e;
  else
    s->events = e;
  s->events_last = e;
}

/* ---- prepare */

static void on_prepare_phase(void *ctx, int phase, bool finished, int rc,
                             const gql_error *errors, uint32_t nerrors) {
  gql_trace *tr = ctx;
  if (!finished) {
    trace_span *s = span_new(tr, phase ? SPAN_VALIDATE : SPAN_PARSE,
                             phase ? GQL_STR("graphql.validate")
                                   : GQL_STR("graphql.parse"));
    if (phase)
      tr->validate = s;
    else
      tr->parse = s;
    return;
  }
  trace_span *s = phase ? tr->validate : tr->parse;
  if (!s)
    return;
  s->end = now_of(tr);
  s->ended = true;
  if (!rc)
    return;
  s->error_type = "GraphQLError";
  if (nerrors && errors[0].message)
    s->error = arena_str(tr, errors[0].message, strlen(errors[0].message));
  else
    s->error = gql_cstr(gql_strerror(rc));
  for (uint32_t i = 0; phase && i < nerrors; i++)
    error_event(tr, s, errors[i].message, errors[i].locations,
                errors[i].nlocations, NULL);
}

/* ---- execute */

static int on_execute_start(void *ctx) {
  gql_trace *tr = ctx;
  tr->exec = span_new(tr, SPAN_EXECUTE, GQL_STR("query"));
  if (tr->sub.execute_start && tr->sub.execute_start(tr->sub.ud, tr))
    tr->aborted = true;
  tr->aborted_at_start = tr->aborted;
  return tr->aborted;
}

static void on_execute_error(void *ctx, const char *message,
                             const gql_location *locs, uint32_t nlocs,
                             const char *path_json) {
  gql_trace *tr = ctx;
  trace_span *s = tr->exec;
  if (!s || tr->aborted_at_start)
    return;
  if (!s->error_type) {
    s->error_type = "GraphQLError";
    s->error = arena_str(tr, message, strlen(message));
  }
  error_event(tr, s, message, locs, nlocs, path_json);
}

/* ---- resolve */

/* The span of the nearest ancestor path that has one: strip the last
 * segment, and list-index segments, until a prefix is known. */
static trace_span *parent_of(gql_trace *tr, gql_str path) {
  size_t n = path.len;
  for (;;) {
    while (n > 0 && path.ptr[n - 1] != '.')
      n--;
    if (n == 0)
      break;
    n--; /* the dot */
    size_t seg = n;
    while (seg > 0 && path.ptr[seg - 1] != '.')
      seg--;
    char c = path.ptr[seg];
    if (c == '*' || (c >= '0' && c <= '9'))
      continue;
    uint32_t idx;
    if (path_get(tr, (gql_str){path.ptr, n}, &idx))
      return tr->spans[idx];
  }
  return tr->exec;
}

/* A resolve span for the field of `info` at `path`, below `parent` (NULL:
 * a root without parent id). */
static trace_span *resolve_span_new(gql_trace *tr, const gql_resolve_info *info,
                                    gql_str path, trace_span *parent,
                                    uint32_t ordinal) {
  trace_span *s = span_new(tr, SPAN_RESOLVE, GQL_STR("graphql.resolve"));
  if (!s)
    return NULL;
  const plan_field *pf = info->pf; /* gql_exec_info_field and _node */
  s->path = path;
  s->field = pf->field;
  s->node = pf->nocc ? pf->occs[0].node : NULL;
  s->ordinal = ordinal;
  if (parent) {
    s->up = parent;
    s->next_kid = parent->kids;
    parent->kids = s;
  }
  if (tr->o.nvariables)
    variable_tags(tr, s, info);
  return s;
}

static trace_span *resolve_span(gql_trace *tr, const gql_resolve_info *info) {
  if (tr->o.depth >= 0 && gql_exec_info_depth(info) > (uint32_t)tr->o.depth)
    return NULL;
  gql_str path = gql_exec_info_path_str(info, tr->arena, !tr->o.no_collapse);
  uint32_t idx;
  if (path_get(tr, path, &idx)) /* abstract types */
    return tr->spans[idx];
  trace_span *s = resolve_span_new(tr, info, path, parent_of(tr, path),
                                   gql_exec_info_ordinal(info));
  if (s)
    path_put(tr, path, tr->nspans - 1);
  return s;
}

/* With collapsing, one entry per planned field: its span, GATED, or NULL
 * before its first call. */
#define GATED ((trace_span *)(uintptr_t)1)
#define NO_PARENT UINT32_MAX

/* A collapsed span from the plan: the parent is the span of the parent
 * planned field (made by an earlier call: a field is called inside a call
 * of its parent), the path that span's path plus ".*" per list level and
 * the response key (kept as key and levels: the exporter writes it, and
 * span_path when a subscriber asks), and planned fields that share a
 * collapsed path (abstract types: one per concrete type) share the
 * parent's child of that path. No path table, no hashing. */
static trace_span *plan_span(gql_trace *tr, const gql_resolve_info *info,
                             uint32_t k) {
  const plan_info *pi = &tr->plan[k];
  if (tr->o.depth >= 0 && pi->depth > (uint32_t)tr->o.depth)
    return NULL;
  uint32_t pk = pi->parent;
  trace_span *parent = pk == NO_PARENT ? tr->exec : tr->owners[pk];
  if (parent == GATED)
    parent = NULL;
  if (!parent && pk != NO_PARENT)
    parent = tr->exec;
  gql_str key = info->pf->key;
  uint32_t lists = pi->lists;
  if (parent)
    for (trace_span *c = parent->kids; c; c = c->next_kid)
      if (c->key.ptr && c->lists == lists && gql_str_eq(c->key, key))
        return c; /* abstract types: the same collapsed path */
  trace_span *s = resolve_span_new(tr, info, (gql_str){0}, parent, k);
  if (s) {
    s->key = key;
    s->lists = lists;
    s->key_is_name = pi->key_is_name;
  }
  return s;
}

/* A span's path string; a plan span's is made on demand, from its
 * parent's. */
static gql_str span_path(gql_trace *tr, trace_span *s) {
  if (s->path.ptr || !s->key.ptr)
    return s->path.ptr ? s->path : GQL_STR("");
  gql_str pp =
      s->up && s->up->kind == SPAN_RESOLVE ? span_path(tr, s->up) : GQL_STR("");
  size_t n = pp.len + (size_t)s->lists * 2 + (pp.len ? 1 : 0) + s->key.len;
  char *d = gql_arena_alloc(tr->arena, n + 1);
  if (!d)
    return GQL_STR("");
  char *w = d;
  memcpy(w, pp.ptr, pp.len);
  w += pp.len;
  for (uint32_t i = 0; i < s->lists; i++, w += 2)
    memcpy(w, ".*", 2);
  if (pp.len)
    *w++ = '.';
  memcpy(w, s->key.ptr, s->key.len);
  d[n] = 0;
  s->path = (gql_str){d, n};
  return s->path;
}

static trace_span *collapsed_owner(gql_trace *tr,
                                   const gql_resolve_info *info) {
  uint32_t k = gql_exec_info_ordinal(info);
  if (GQL_UNLIKELY(k >= tr->nowners))
    return NULL;
  trace_span *s = tr->owners[k];
  if (GQL_LIKELY(s != NULL))
    return s == GATED ? NULL : s;
  s = tr->plan ? plan_span(tr, info, k) : resolve_span(tr, info);
  tr->owners[k] = s ? s : GATED;
  return s;
}

/* With tr->calls (collapse on, no per-call subscriber), the calls of a
 * planned field after its first are skipped: the span is made by the first
 * call, and a call that completes synchronously needs no clock read of its
 * own. A composite field's calls keep resolve_finish: each completion
 * stamps the span and its child spans, so a collapsed span of synchronous
 * calls ends at the completion of the last call of its parent field (which
 * follows the completion of the last call sharing the span). A span
 * parented to the execute span (a root field) is stamped by its own calls.
 * Errors and pending completions always come through resolve_finish: the
 * first error, and the last completion of pending calls, stay exact. The
 * answer holds for the first call's resolve_finish too. With
 * hooks.last_stamps the executor stamps only a list's last item's
 * completion when the next item is certain to call the field again (see
 * gql_hooks.last_stamps): the running maximum is the same. */
static uint8_t calls_needed(gql_trace *tr, const gql_resolve_info *info,
                            uint32_t k, const trace_span *owner) {
  if (!owner)
    return 0; /* depth-gated, and so are its descendants */
  /* a completion that only moves an end: a clock read, no hook */
  uint8_t fin = tr->stamps ? GQL_HOOK_STAMP : GQL_HOOK_FINISH;
  if (!tr->plan || tr->plan[k].parent == NO_PARENT)
    return fin; /* no parent span to stamp it */
  if (!tr->plan[k].composite)
    return 0;
  if (tr->o.depth >= 0 && tr->plan[k].depth >= (uint32_t)tr->o.depth)
    return 0; /* its child fields get no span */
  return fin;
}

/* The first call of a planned field in the common case (tr->lean: the
 * plan's facts, cached answers and stamps; no variable tags), straight
 * line: what plan_span, resolve_span_new, span_new and calls_needed would
 * do, with no shared path to look for (not under an abstract type), the
 * parent's span made and the span array with room. NULL: take the general
 * path (which handles every case). */
static inline trace_span *lean_first(gql_trace *tr,
                                     const gql_resolve_info *info, uint32_t k) {
  const plan_info *pi = &tr->plan[k];
  uint32_t pk = pi->parent;
  trace_span *parent = pk == NO_PARENT ? tr->exec : tr->owners[pk];
  if (GQL_UNLIKELY(!parent || parent == GATED || pi->shared ||
                   tr->nspans == tr->cap ||
                   (tr->o.depth >= 0 && pi->depth > (uint32_t)tr->o.depth)))
    return NULL;
  const plan_field *pf = info->pf;
  uint32_t idx = tr->nspans++;
  trace_span *s = &tr->slab[idx - tr->slab_base];
  *s = (trace_span){.kind = SPAN_RESOLVE,
                    .key_is_name = pi->key_is_name,
                    .idx = idx,
                    .lists = pi->lists,
                    .key = pf->key,
                    .name = GQL_STR("graphql.resolve"),
                    .field = pf->field,
                    .node = pf->nocc ? pf->occs[0].node : NULL,
                    .ordinal = k,
                    .next_kid = parent->kids,
                    .up = parent};
  s->start = now_of(tr);
  tr->spans[idx] = s;
  parent->kids = s;
  tr->owners[k] = s;
  /* calls_needed with an owner and stamps */
  uint8_t ans = GQL_HOOK_STAMP;
  if (pk != NO_PARENT &&
      (!pi->composite ||
       (tr->o.depth >= 0 && pi->depth >= (uint32_t)tr->o.depth)))
    ans = 0;
  tr->calls[k] = ans;
  return s;
}

/* Entry mode's answer for a planned field (tr->lean, no subscriber at the
 * finish, record blobs): GQL_HOOK_ENTRY (the executor stamps the first
 * call's entry, no resolve_start) and what calls_needed would answer for
 * later calls; 0 for a depth-gated field (no span, and none below); both
 * hooks for a field lean_first does not take (under an abstract type, or
 * one the plan walk missed): its first call leaves entry mode. */
static uint8_t entry_answer(const gql_trace *tr, uint32_t k) {
  const plan_info *pi = &tr->plan[k];
  if (!pi->pf || pi->shared)
    return GQL_HOOK_START | GQL_HOOK_FINISH;
  int32_t d = tr->o.depth;
  if (d >= 0 && pi->depth > (uint32_t)d)
    return 0;
  if (pi->parent != NO_PARENT &&
      (!pi->composite || (d >= 0 && pi->depth >= (uint32_t)d)))
    return GQL_HOOK_ENTRY;
  return GQL_HOOK_ENTRY | GQL_HOOK_STAMP;
}

typedef struct start_of {
  uint64_t start;
  uint32_t k;
} start_of;

static int start_cmp(const void *a, const void *b) {
  const start_of *x = a, *y = b;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return x->k < y->k ? -1 : x->k > y->k;
}

/* The planned fields whose first call has been stamped, in the order of
 * those calls (the order lean_first would have made their spans), into
 * tr->order; returns how many. Usually that is ordinal order (the plan's,
 * depth first): one pass. Else by start, then ordinal; a start before its
 * parent's (a clock that went back) is taken as the parent's, so that a
 * parent always comes first (its ordinal is smaller). */
static uint32_t entry_order(gql_trace *tr) {
  uint64_t *st = tr->starts;
  uint32_t *ks = tr->order, m = 0;
  bool sorted = true;
  for (uint32_t k = 0; k < tr->nowners; k++) {
    if (!st[k])
      continue;
    if (m && st[ks[m - 1]] > st[k])
      sorted = false;
    ks[m++] = k;
  }
  if (sorted) /* a parent's ordinal is smaller */
    return m;
  for (uint32_t i = 0; i < m; i++) { /* parents first */
    uint32_t k = ks[i], pk = tr->plan[k].parent;
    if (pk != NO_PARENT && st[pk] > st[k])
      st[k] = st[pk];
  }
  start_of *v = gql_arena_alloc(tr->arena, sizeof *v * m);
  if (!v)
    return m; /* out of memory: ordinal order (parents first still) */
  for (uint32_t i = 0; i < m; i++)
    v[i] = (start_of){st[ks[i]], ks[i]};
  qsort(v, m, sizeof *v, start_cmp);
  for (uint32_t i = 0; i < m; i++)
    ks[i] = v[i].k;
  return m;
}

/* Leaves entry mode: the spans of the stamped first calls become structs,
 * as lean_first would have made them, in the order of those calls; the
 * fields not called yet ask for both hooks (lean_first or the general
 * path). After this, everything runs as without entry mode. */
static void entry_leave(gql_trace *tr) {
  if (!tr->entry)
    return;
  tr->entry = false;
  tr->hooks.starts = NULL;
  uint32_t m = entry_order(tr);
  for (uint32_t i = 0; i < m; i++) {
    uint32_t k = tr->order[i];
    const plan_info *pi = &tr->plan[k];
    uint32_t pk = pi->parent;
    trace_span *parent = pk == NO_PARENT ? tr->exec : tr->owners[pk];
    if (parent == GATED)
      parent = NULL;
    trace_span *s = span_alloc(tr, SPAN_RESOLVE, GQL_STR("graphql.resolve"));
    if (!s) {
      tr->owners[k] = GATED; /* out of memory: no span */
      continue;
    }
    const plan_field *pf = pi->pf;
    s->key_is_name = pi->key_is_name;
    s->lists = pi->lists;
    s->key = pf->key;
    s->field = pf->field;
    s->node = pf->nocc ? pf->occs[0].node : NULL;
    s->ordinal = k;
    s->start = tr->starts[k];
    if (parent) {
      s->up = parent;
      s->next_kid = parent->kids;
      parent->kids = s;
    }
    if (tr->errs && tr->errs[k].ptr) {
      s->error_type = "Error";
      s->error = tr->errs[k];
    }
    tr->owners[k] = s;
  }
  for (uint32_t k = 0; k < tr->nowners; k++)
    if (tr->calls[k] & GQL_HOOK_ENTRY)
      tr->calls[k] = GQL_HOOK_START | GQL_HOOK_FINISH;
}

static int on_resolve_start(void *ctx, const gql_resolve_info *info) {
  gql_trace *tr = ctx;
  if (GQL_UNLIKELY(tr->entry))
    entry_leave(tr);
  if (GQL_LIKELY(tr->lean && !tr->aborted)) {
    uint32_t k = gql_exec_info_ordinal(info);
    trace_span *s;
    if (GQL_LIKELY(k < tr->nowners && !tr->owners[k]) &&
        (s = lean_first(tr, info, k))) {
      gql_exec_info_set_trace(info, s);
      return 0;
    }
  }
  tr->mixed = true; /* not every span from lean_first (see finish_lean) */
  if (tr->sub.resolve_start && tr->sub.resolve_start(tr->sub.ud, tr, info))
    tr->aborted = true;
  trace_span *owner = NULL;
  if (tr->o.depth != 0 && tr->p) /* spans need gql_trace_set_operation */
    owner =
        tr->o.no_collapse ? resolve_span(tr, info) : collapsed_owner(tr, info);
  gql_exec_info_set_trace(info, owner);
  if (tr->calls && !tr->aborted) {
    uint32_t k = gql_exec_info_ordinal(info);
    if (k < tr->nowners)
      tr->calls[k] = calls_needed(tr, info, k, owner);
  }
  return tr->aborted;
}

static void on_resolve_finish(void *ctx, const gql_resolve_info *info) {
  gql_trace *tr = ctx;
  trace_span *s;
  const char *err = gql_exec_info_error(info);
  if (tr->sub.resolve_update)
    tr->sub.resolve_update(tr->sub.ud, tr, info, err);
  if (tr->entry) { /* an error, a pending completion: into the stamps */
    uint32_t k = gql_exec_info_ordinal(info);
    if (k >= tr->nowners || !tr->starts[k])
      return; /* depth-gated */
    uint64_t now = now_of(tr), st = tr->stamps[k];
    if (now > st || st == GQL_STAMP_OWED) /* see hooks.last_stamps */
      tr->stamps[k] = now;
    if (err && !(tr->errs && tr->errs[k].ptr)) { /* the first error wins */
      if (!tr->errs && (tr->errs = gql_arena_alloc(tr->arena, sizeof *tr->errs *
                                                                  tr->nowners)))
        memset(tr->errs, 0, sizeof *tr->errs * tr->nowners);
      if (tr->errs)
        tr->errs[k] = arena_str(tr, err, strlen(err));
    }
    return;
  }
  if (tr->calls) { /* the planned field's span (the executor leaves the
                    * info's trace as it was for a call without hooks) */
    uint32_t k = gql_exec_info_ordinal(info);
    s = k < tr->nowners ? tr->owners[k] : NULL;
    if (s == GATED)
      s = NULL;
  } else {
    s = gql_exec_info_trace(info);
  }
  if (!s)
    return;
  uint64_t now = now_of(tr);
  if (now > s->end)
    s->end = now; /* the last sibling's completion */
  s->ended = true;
  if (err && !s->error_type) { /* the first error wins */
    s->error_type = "Error";
    s->error = arena_str(tr, err, strlen(err));
  }
}

/* ---- tags, encoding, queueing */

static const char *op_type(gql_operation_type t) {
  return t == GQL_OP_MUTATION       ? "mutation"
         : t == GQL_OP_SUBSCRIPTION ? "subscription"
                                    : "query";
}

static bool allowed(const gql_trace *tr, gql_str name) {
  for (uint32_t i = 0; i < tr->o.nvariables; i++)
    if (gql_str_eq_cstr(name, tr->o.variables[i]))
      return true;
  return false;
}

static gql_str value_text(gql_trace *tr, const gql_json_value *v) {
  if (v->kind == GQL_JSON_STRING)
    return v->string;
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_json_write_value(&b, v);
  gql_str s = arena_str(tr, b.data, b.failed ? 0 : b.len);
  gql_buf_free(&b);
  return s;
}

static bool truthy(const gql_json_value *v) {
  switch (v->kind) {
  case GQL_JSON_NULL:
    return false;
  case GQL_JSON_BOOL:
    return v->boolean;
  case GQL_JSON_NUMBER:
    return v->number.d != 0;
  case GQL_JSON_STRING:
    return v->string.len > 0;
  default:
    return true;
  }
}

static gql_str var_key(gql_trace *tr, gql_str name) {
  char *k = gql_arena_sprintf(tr->arena, "graphql.variables.%.*s",
                              (int)name.len, name.ptr);
  return k ? gql_cstr(k) : GQL_STR("graphql.variables");
}

static void execute_tags(gql_trace *tr, trace_span *s) {
  const gql_prepared *p = tr->p;
  if (!p)
    return;
  const gql_ast_operation *op = p->op;
  const char *t = op_type(p->kind);
  s->name = gql_cstr(t);
  attr_add(tr, s, GQL_STR("graphql.operation.type"), gql_cstr(t));
  if (op && op->name.len)
    attr_add(tr, s, GQL_STR("graphql.operation.name"),
             gql_ast_name_str(op->name));
  gql_str res = GQL_STR("");
  bool cached = false;
  if (!tr->o.no_signature && tr->memo_hit && tr->memo.sig.len) {
    res = tr->memo.sig; /* the tracer's, looked up for this operation */
    cached = true;
  } else if (!tr->o.no_signature && tr->tracer &&
             gql_tracer_cached_signature(tr->tracer, p, &res)) {
    cached = true;
    if (tr->memo_hit)
      tr->memo.sig = res;
  }
  /* a cached one lives as long as the tracer: the record holds a pointer */
  s->resource_pinned = cached && res.len;
  if (!tr->o.no_signature && !cached) {
    const char *name = NULL;
    if (op && op->name.len)
      name = gql_arena_strndup(tr->arena, op->name.ptr, op->name.len);
    if (gql_trace_signature(tr->arena, p->doc, name, &res) < 0)
      res = GQL_STR("");
    else if (tr->tracer)
      gql_tracer_cache_signature(tr->tracer, p, res);
  }
  if (!res.len)
    res = gql_trace_fallback_resource(tr->arena, op);
  s->resource = res;
  if (tr->o.source) {
    attr_add(tr, s, GQL_STR("graphql.source"), p->text);
    attr_add(tr, s, GQL_STR("graphql.document"), p->text);
  }
  if (tr->o.nvariables && tr->vars_json) {
    gql_json_value *vars;
    gql_json_error je;
    if (gql_json_parse(tr->arena, tr->vars_json, tr->vars_len, NULL, &vars,
                       &je) == 0 &&
        vars->kind == GQL_JSON_OBJECT)
      for (size_t i = 0; i < vars->object.count; i++) {
        const gql_json_member *m = &vars->object.members[i];
        if (allowed(tr, m->key))
          attr_add(tr, s, var_key(tr, m->key), value_text(tr, &m->value));
      }
  }
}

/* A resolve span's own tags: its field name, path and type, and the
 * resource made from them, go with the record (resolve_attrs). */
static void resolve_tags(gql_trace *tr, trace_span *s) {
  const gql_ast_selection *n = s->node;
  if (tr->o.source && n && n->h.end <= tr->p->text.len)
    attr_add(tr, s, GQL_STR("graphql.source"),
             (gql_str){tr->p->text.ptr + n->h.start, n->h.end - n->h.start});
}

/* graphql.variables.<name> for the arguments given as allowed variables,
 * read during the first call (the values live in the execution). */
static void variable_tags(gql_trace *tr, trace_span *s,
                          const gql_resolve_info *info) {
  const gql_ast_selection *n = s->node;
  for (uint32_t i = 0; n && i < n->args.count; i++) {
    const gql_ast_value *v = n->args.items[i]->value;
    if (!v || v->h.kind != GQL_AST_VARIABLE)
      continue;
    gql_str name = gql_ast_name_str(v->u.name);
    if (!allowed(tr, name))
      continue;
    const gql_json_value *val = gql_exec_info_variable(info, name);
    if (val && truthy(val))
      attr_add(tr, s, var_key(tr, name), value_text(tr, val));
  }
}

static const otlp_resolve *resolve_of(const gql_trace *tr, const trace_span *s,
                                      otlp_resolve *r) {
  if (s->kind != SPAN_RESOLVE || !s->field || !tr->p)
    return NULL;
  const gql_field *f = s->field;
  *r = (otlp_resolve){.name = f->name,
                      .type = tr->p->s->types[f->type.type].name,
                      .mods = {f->type.mods, f->type.nmods}};
  if (!s->path.ptr && s->key.ptr) {
    r->relative = true;
    r->key = s->key;
    r->lists = s->lists;
  } else {
    r->path = s->path;
  }
  return r;
}

/* Encodes every span not yet queued and hands them to the tracer. The
 * trace's ids come from one random draw here (seeded by the last clock
 * read and the trace's address; the high word of the trace id starts
 * with the first span's Unix second; the rest and the span id base are
 * the draw and a bijective mix of it, no more and no less random than
 * more draws from that seed would be): no clock read of their own. */
static gql_buf *queue_open(gql_trace *tr, uint64_t tick, uint32_t nspans) {
  if (tr->queued)
    return NULL;
  tr->queued = true;
  if (!tr->tracer || !tr->nspans)
    return NULL;
  gql_tracer *t = tr->tracer;
  uint64_t rng = (uint64_t)(uintptr_t)tr ^ tick ^ 0x9e3779b97f4a7c15u;
  uint64_t secs = gql_tracer_to_ns(t, tr->spans[0]->start) / 1000000000u;
  uint64_t z = gql_tracer_random(t, &rng), w = z * 0xd6e8feb86659fd93u;
  w ^= w >> 32;
  otlp_ids ids = {.trace_hi = (secs << 32) | (w & 0xffffffffu), .trace_lo = z};
  if (tr->remote_parent)
    ids = (otlp_ids){tr->remote_hi, tr->remote_lo, tr->remote_parent,
                     tr->remote_state};
  gql_buf *b = &tr->scratch;
  b->len = 0;
  gql_otlp_trace_header(b, &ids, w * 0x9e3779b97f4a7c15u ^ (z >> 29), nspans);
  return b;
}

static void queue_spans(gql_trace *tr, uint64_t tick) {
  gql_buf *b = queue_open(tr, tick, tr->nspans);
  if (!b)
    return;
  gql_tracer *t = tr->tracer;
  const gql_schema *schema = tr->p ? tr->p->s : NULL;
  for (uint32_t i = 0; i < tr->nspans; i++) {
    const trace_span *s = tr->spans[i];
    uint32_t parent = s->up ? s->up->idx + 1 : 0;
    const gql_field *f = s->field;
    if (s->kind == SPAN_RESOLVE && f && schema && s->key.ptr && !s->path.ptr &&
        !s->attrs && !s->error_type && !s->events) {
      uint32_t k = s->ordinal;
      if (tr->blob_off && k < tr->nowners &&
          tr->blob_off[k + 1] > tr->blob_off[k]) {
        gql_otlp_record_blob(b, tr->blobs + tr->blob_off[k],
                             tr->blob_off[k + 1] - tr->blob_off[k], parent,
                             s->start, s->end);
        continue;
      }
      gql_otlp_record_plan(b, s, parent, f->name,
                           schema->types[f->type.type].name,
                           (gql_str){f->type.mods, f->type.nmods});
      continue;
    }
    otlp_resolve r;
    gql_otlp_record(b, s, parent, resolve_of(tr, s, &r));
  }
  gql_tracer_push(t, b, tr->nspans); /* a failed b: counted as dropped */
}

/* Ends the execute span `ex` (NULL: none) at `end`, with its tags unless
 * they come from the operation's image. */
static void execute_end(gql_trace *tr, trace_span *ex, bool tags,
                        uint64_t end) {
  if (!ex)
    return;
  if (tags)
    execute_tags(tr, ex);
  ex->end = end;
  ex->ended = true;
}

/* on_execute_finish's passes and queue_spans' in one, for a trace whose
 * resolve spans all come from lean_first (each has one planned field, its
 * ordinal's: its stamps are stamps[ordinal]), with cached answers and
 * record blobs, and without subscriber calls or source tags at the finish:
 * in creation order (a parent before its children), a span's own end
 * (its completions and stamps) goes into stamps[ordinal], where its
 * children read it (the reverse pass of on_execute_finish reads the
 * parent's own end the same way), and its record is written at once. */
static void finish_lean(gql_trace *tr, uint64_t now) {
  trace_span *ex = tr->exec;
  execute_end(tr, ex, true, now);
  gql_buf *b = queue_open(tr, now, tr->nspans);
  if (!b)
    return;
  uint64_t *own = tr->stamps;
  const char *blobs = tr->blobs;
  const uint32_t *off = tr->blob_off;
  for (uint32_t i = 0; i < tr->nspans; i++) {
    trace_span *s = tr->spans[i];
    const trace_span *up = s->up;
    uint32_t parent = up ? up->idx + 1 : 0;
    if (s->kind != SPAN_RESOLVE) {
      otlp_resolve r;
      gql_otlp_record(b, s, parent, resolve_of(tr, s, &r));
      continue;
    }
    uint32_t k = s->ordinal;
    uint64_t end = s->end, st = own[k];
    bool ended = s->ended;
    if (st) { /* the completions the executor stamped */
      if (st > end)
        end = st;
      ended = true;
    }
    own[k] = ended ? end : 0;
    if (up && up->kind == SPAN_RESOLVE) { /* the parent's calls' */
      uint64_t ue = own[up->ordinal];
      if (ue && (!ended || ue > end)) {
        end = ue;
        ended = true;
      }
    }
    s->end = ended ? end : now;
    s->ended = true;
    uint32_t n = off[k + 1] - off[k];
    if (GQL_LIKELY(n && !s->attrs && !s->error_type && !s->events)) {
      gql_otlp_record_blob(b, blobs + off[k], n, parent, s->start, s->end);
    } else {
      otlp_resolve r;
      gql_otlp_record(b, s, parent, resolve_of(tr, s, &r));
    }
  }
  gql_tracer_push(tr->tracer, b, tr->nspans);
}

/* finish_entry's records of the stamped first calls when every one is
 * by reference (tr->refs), without errors, and the first calls came in
 * the plan's order (entry_order's usual case): one pass in ordinal
 * order, 32 bytes each into room reserved once. False (b as it was)
 * when the first calls came in another order or a field has no pinned
 * image: then the general way. */
static bool finish_refs(gql_trace *tr, gql_buf *b, uint64_t now,
                        uint32_t exec_pos, uint32_t *count) {
  uint32_t n = tr->nowners;
  size_t need = (size_t)OTLP_REF_RECORD * n;
  if (GQL_UNLIKELY(b->cap - b->len < need) && !gql_buf_reserve(b, need))
    return false;
  const rec_ref *refs = tr->refs;
  const uint64_t *own = tr->stamps, *st = tr->starts;
  uint32_t *pos = tr->order + n, m = 0, base = tr->nspans + 1;
  uint64_t last = 0;
  char *w = b->data + b->len;
  for (uint32_t k = 0; k < n; k++) {
    uint64_t start = st[k];
    if (!start)
      continue;
    const rec_ref *r = &refs[k];
    if (GQL_UNLIKELY(start < last || !r->ref))
      return false;
    last = start;
    uint32_t pk = r->parent, parent = exec_pos;
    uint64_t end = own[k];
    if (pk != NO_PARENT && st[pk]) { /* started: made before this one */
      parent = pos[pk];
      uint64_t ue = own[pk]; /* the parent's calls' completions */
      if (ue > end)
        end = ue;
    }
    if (!end)
      end = now;
    pos[k] = base + m++;
    w = gql_otlp_put_ref(w, r->head, r->ref, parent, start, end);
  }
  b->len = (size_t)(w - b->data);
  *count = m;
  return true;
}

/* finish_lean in entry mode: the spans that are not resolve spans
 * (execute, parse, validate: structs, before any resolve span), then one
 * record per stamped first call, in the order of those calls, the same
 * as finish_lean's (start, end from the stamps, parent, blob). */
static void finish_entry(gql_trace *tr, uint64_t now) {
  trace_span *ex = tr->exec;
  tr->entry = false; /* done: nothing for gql_trace_end to make */
  op_memo *m = &tr->memo;
  /* the execute span's record from the memo's image: nothing on it but
   * what execute_tags would add (entry mode: no source or variable tags) */
  bool clean = ex && tr->memo_hit && tr->p && !ex->attrs && !ex->error_type &&
               !ex->events && !tr->o.source && !tr->o.nvariables;
  bool img = clean && m->exec_len && m->exec_nosig == tr->o.no_signature;
  execute_end(tr, ex, !img, now);
  /* the span count: set when the records are made */
  gql_buf *b = queue_open(tr, now, tr->nspans);
  if (!b)
    return;
  for (uint32_t i = 0; i < tr->nspans; i++) {
    const trace_span *s = tr->spans[i];
    uint32_t parent = s->up ? s->up->idx + 1 : 0;
    if (s == ex && img) {
      gql_otlp_record_tail(b, m->exec_head, parent, s->start, s->end,
                           m->exec_img, m->exec_len);
      continue;
    }
    size_t at = b->len;
    otlp_resolve r;
    gql_otlp_record(b, s, parent, resolve_of(tr, s, &r));
    if (s == ex && clean && ex->resource_pinned && !b->failed &&
        b->len >= at + OTLP_RECORD_HEAD) { /* keep its image */
      size_t n = b->len - at - OTLP_RECORD_HEAD;
      char *c = m->exec_img;
      if (n > m->exec_cap && (c = realloc(m->exec_img, n))) {
        m->exec_img = c;
        m->exec_cap = n;
      }
      if (n <= m->exec_cap) {
        memcpy(m->exec_img, b->data + at + OTLP_RECORD_HEAD, n);
        memcpy(&m->exec_head, b->data + at, 4);
        m->exec_len = n;
        m->exec_nosig = tr->o.no_signature;
      }
    }
  }
  uint32_t exec_pos = ex ? ex->idx + 1 : 0, nfirst;
  if (tr->refs && !tr->errs && finish_refs(tr, b, now, exec_pos, &nfirst)) {
    gql_otlp_trace_header_count(b, tr->nspans + nfirst);
    gql_tracer_push(tr->tracer, b, tr->nspans + nfirst);
    return;
  }
  nfirst = entry_order(tr);
  gql_otlp_trace_header_count(b, tr->nspans + nfirst);
  const uint64_t *own = tr->stamps, *st = tr->starts;
  const char *blobs = tr->blobs, *pinned = tr->pinned;
  const uint32_t *off = tr->blob_off;
  uint32_t *pos = tr->order + tr->nowners;
  for (uint32_t i = 0; i < nfirst; i++) {
    uint32_t k = tr->order[i], pk = tr->plan[k].parent, parent = exec_pos;
    pos[k] = tr->nspans + i + 1;
    uint64_t end = own[k];
    bool ended = end != 0;
    if (pk != NO_PARENT && st[pk]) { /* started: made before this one */
      parent = pos[pk];
      uint64_t ue = own[pk]; /* the parent's calls' completions */
      if (ue && (!ended || ue > end)) {
        end = ue;
        ended = true;
      }
    }
    if (!ended)
      end = now;
    uint32_t n = off[k + 1] - off[k];
    if (GQL_LIKELY(n && !(tr->errs && tr->errs[k].ptr))) {
      if (GQL_LIKELY(pinned != NULL)) { /* 32 bytes, whatever the field */
        uint32_t head;
        memcpy(&head, blobs + off[k], 4);
        gql_otlp_record_ref(b, head, pinned + off[k], parent, st[k], end);
      } else {
        gql_otlp_record_blob(b, blobs + off[k], n, parent, st[k], end);
      }
      continue;
    }
    const plan_info *pi = &tr->plan[k];
    trace_span s = {.kind = SPAN_RESOLVE,
                    .start = st[k],
                    .end = end,
                    .ended = true,
                    .key_is_name = pi->key_is_name,
                    .idx = tr->nspans + i,
                    .lists = pi->lists,
                    .key = pi->pf->key,
                    .name = GQL_STR("graphql.resolve"),
                    .field = pi->pf->field,
                    .ordinal = k};
    if (tr->errs && tr->errs[k].ptr) {
      s.error_type = "Error";
      s.error = tr->errs[k];
    }
    otlp_resolve r;
    gql_otlp_record(b, &s, parent, resolve_of(tr, &s, &r));
  }
  gql_tracer_push(tr->tracer, b, tr->nspans + nfirst);
}

static void on_execute_finish(void *ctx, bool has_errors) {
  gql_trace *tr = ctx;
  trace_span *ex = tr->exec;
  uint64_t now = now_of(tr);
  if (tr->entry) {
    finish_entry(tr, now);
    return;
  }
  if (tr->lean && !tr->mixed && tr->blob_off && !tr->sub.resolve_finish &&
      !tr->sub.execute_finish && !tr->o.source && tr->p) {
    finish_lean(tr, now);
    return;
  }
  /* The completions the executor stamped (GQL_HOOK_STAMP). */
  for (uint32_t k = 0; tr->stamps && k < tr->nowners; k++) {
    trace_span *s = tr->owners[k];
    if (s && s != GATED && tr->stamps[k]) {
      if (tr->stamps[k] > s->end)
        s->end = tr->stamps[k];
      s->ended = true;
    }
  }
  /* With tr->calls the completions of the parent field's calls count too
   * (see calls_needed): children first, so that s->up->end is still the
   * parent's own. */
  for (uint32_t i = tr->calls ? tr->nspans : 0; i-- > 0;) {
    trace_span *s = tr->spans[i], *up = s->up;
    if (s->kind == SPAN_RESOLVE && up && up->kind == SPAN_RESOLVE &&
        up->ended && (!s->ended || up->end > s->end)) {
      s->end = up->end;
      s->ended = true;
    }
  }
  for (uint32_t i = 0; i < tr->nspans; i++) {
    trace_span *s = tr->spans[i];
    if (s->kind != SPAN_RESOLVE)
      continue;
    if (!s->ended)
      s->end = now;
    resolve_tags(tr, s);
    if (tr->sub.resolve_finish)
      tr->sub.resolve_finish(tr->sub.ud, tr, span_path(tr, s).ptr,
                             s->error_type ? s->error.ptr : NULL);
  }
  if (tr->sub.execute_finish)
    tr->sub.execute_finish(tr->sub.ud, tr, has_errors);
  /* after the subscriber's execute_finish; else no second clock read */
  execute_end(tr, ex, true, tr->sub.execute_finish ? now_of(tr) : now);
  if (tr->o.source && tr->p) {
    if (tr->parse)
      attr_add(tr, tr->parse, GQL_STR("graphql.source"), tr->p->text);
    if (tr->validate)
      attr_add(tr, tr->validate, GQL_STR("graphql.source"), tr->p->text);
  }
  queue_spans(tr, ex ? ex->end : now);
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
  tr->tsc = t && gql_tracer_tsc(t);
  tr->hooks = (gql_hooks){.execute_start = on_execute_start,
                          .execute_finish = on_execute_finish,
                          .resolve_start = on_resolve_start,
                          .resolve_finish = on_resolve_finish,
                          .ctx = tr,
                          .execute_error = on_execute_error,
                          .prepare_phase = on_prepare_phase};
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

const gql_hooks *gql_trace_hooks(gql_trace *tr) {
  return tr ? &tr->hooks : NULL;
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
      /* entry mode: finish_lean's conditions, known here */
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
            tr->calls[k] = entry_answer(tr, k);
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
  entry_leave(tr);               /* an execution that did not finish */
  if (!tr->queued && tr->nspans) /* no execution: a parse or validate span */
    queue_spans(tr, now_of(tr));
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
