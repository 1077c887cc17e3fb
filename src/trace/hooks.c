/* The executor's hooks (execution/hooks.h): resolve spans made by the
 * first call of their planned field (collapsed: parent, path and span by
 * planned field), the answers that tell the executor which later calls
 * need a hook at all (none, a clock stamp, an entry stamp), entry mode's
 * stamped first calls turned into spans when the general path is needed,
 * and the execute span's start, errors and finish. */
#include "trace.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- the per-trace table of paths (collapsing off) */

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

/* ---- prepare */

void gql_trace_on_prepare_phase(void *ctx, int phase, bool finished, int rc,
                                const gql_error *errors, uint32_t nerrors) {
  gql_trace *tr = ctx;
  if (!finished) {
    trace_span *s = gql_trace_span_new(tr, phase ? SPAN_VALIDATE : SPAN_PARSE,
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
    s->error =
        gql_trace_arena_str(tr, errors[0].message, strlen(errors[0].message));
  else
    s->error = gql_cstr(gql_strerror(rc));
  for (uint32_t i = 0; phase && i < nerrors; i++)
    gql_trace_error_event(tr, s, errors[i].message, errors[i].locations,
                          errors[i].nlocations, NULL);
}

/* ---- execute */

int gql_trace_on_execute_start(void *ctx) {
  gql_trace *tr = ctx;
  tr->exec = gql_trace_span_new(tr, SPAN_EXECUTE, GQL_STR("query"));
  if (tr->sub.execute_start && tr->sub.execute_start(tr->sub.ud, tr))
    tr->aborted = true;
  tr->aborted_at_start = tr->aborted;
  return tr->aborted;
}

void gql_trace_on_execute_error(void *ctx, const char *message,
                                const gql_location *locs, uint32_t nlocs,
                                const char *path_json) {
  gql_trace *tr = ctx;
  trace_span *s = tr->exec;
  if (!s || tr->aborted_at_start)
    return;
  if (!s->error_type) {
    s->error_type = "GraphQLError";
    s->error = gql_trace_arena_str(tr, message, strlen(message));
  }
  gql_trace_error_event(tr, s, message, locs, nlocs, path_json);
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
  trace_span *s =
      gql_trace_span_new(tr, SPAN_RESOLVE, GQL_STR("graphql.resolve"));
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
    gql_trace_variable_tags(tr, s, info);
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

/* A collapsed span from the plan: the parent is the span of the parent
 * planned field (made by an earlier call: a field is called inside a call
 * of its parent), the path that span's path plus ".*" per list level and
 * the response key (kept as key and levels: the exporter writes it, and
 * gql_trace_span_path when a subscriber asks), and planned fields that share a
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
gql_str gql_trace_span_path(gql_trace *tr, trace_span *s) {
  if (s->path.ptr || !s->key.ptr)
    return s->path.ptr ? s->path : GQL_STR("");
  gql_str pp = s->up && s->up->kind == SPAN_RESOLVE
                   ? gql_trace_span_path(tr, s->up)
                   : GQL_STR("");
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
 * gql_exec_hooks.last_stamps): the running maximum is the same. */
uint8_t gql_trace_calls_needed(gql_trace *tr, const gql_resolve_info *info,
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
 * line: what plan_span, resolve_span_new, gql_trace_span_new and
 * gql_trace_calls_needed would do, with no shared path to look for (not under
 * an abstract type), the parent's span made and the span array with room. NULL:
 * take the general path (which handles every case). */
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
  /* gql_trace_calls_needed with an owner and stamps */
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
 * call's entry, no resolve_start) and what gql_trace_calls_needed would answer
 * for later calls; 0 for a depth-gated field (no span, and none below); both
 * hooks for a field lean_first does not take (under an abstract type, or
 * one the plan walk missed): its first call leaves entry mode. */
uint8_t gql_trace_entry_answer(const gql_trace *tr, uint32_t k) {
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

/* Leaves entry mode: the spans of the stamped first calls become structs,
 * as lean_first would have made them, in the order of those calls; the
 * fields not called yet ask for both hooks (lean_first or the general
 * path). After this, everything runs as without entry mode. */
void gql_trace_entry_leave(gql_trace *tr) {
  if (!tr->entry)
    return;
  tr->entry = false;
  tr->hooks.starts = NULL;
  uint32_t m = gql_trace_entry_order(tr);
  for (uint32_t i = 0; i < m; i++) {
    uint32_t k = tr->order[i];
    const plan_info *pi = &tr->plan[k];
    uint32_t pk = pi->parent;
    trace_span *parent = pk == NO_PARENT ? tr->exec : tr->owners[pk];
    if (parent == GATED)
      parent = NULL;
    trace_span *s =
        gql_trace_span_alloc(tr, SPAN_RESOLVE, GQL_STR("graphql.resolve"));
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

int gql_trace_on_resolve_start(void *ctx, const gql_resolve_info *info) {
  gql_trace *tr = ctx;
  if (GQL_UNLIKELY(tr->entry))
    gql_trace_entry_leave(tr);
  if (GQL_LIKELY(tr->lean && !tr->aborted)) {
    uint32_t k = gql_exec_info_ordinal(info);
    trace_span *s;
    if (GQL_LIKELY(k < tr->nowners && !tr->owners[k]) &&
        (s = lean_first(tr, info, k))) {
      gql_exec_info_set_trace(info, s);
      return 0;
    }
  }
  tr->mixed =
      true; /* not every span from lean_first (see gql_trace_finish_lean) */
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
      tr->calls[k] = gql_trace_calls_needed(tr, info, k, owner);
  }
  return tr->aborted;
}

void gql_trace_on_resolve_finish(void *ctx, const gql_resolve_info *info) {
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
        tr->errs[k] = gql_trace_arena_str(tr, err, strlen(err));
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
    s->error = gql_trace_arena_str(tr, err, strlen(err));
  }
}

void gql_trace_on_execute_finish(void *ctx, bool has_errors) {
  gql_trace *tr = ctx;
  trace_span *ex = tr->exec;
  uint64_t now = now_of(tr);
  if (tr->entry) {
    gql_trace_finish_entry(tr, now);
    return;
  }
  if (tr->lean && !tr->mixed && tr->blob_off && !tr->sub.resolve_finish &&
      !tr->sub.execute_finish && !tr->o.source && tr->p) {
    gql_trace_finish_lean(tr, now);
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
   * (see gql_trace_calls_needed): children first, so that s->up->end is still
   * the parent's own. */
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
    gql_trace_resolve_tags(tr, s);
    if (tr->sub.resolve_finish)
      tr->sub.resolve_finish(tr->sub.ud, tr, gql_trace_span_path(tr, s).ptr,
                             s->error_type ? s->error.ptr : NULL);
  }
  if (tr->sub.execute_finish)
    tr->sub.execute_finish(tr->sub.ud, tr, has_errors);
  /* after the subscriber's execute_finish; else no second clock read */
  gql_trace_execute_end(tr, ex, true,
                        tr->sub.execute_finish ? now_of(tr) : now);
  if (tr->o.source && tr->p) {
    if (tr->parse)
      gql_trace_attr_add(tr, tr->parse, GQL_STR("graphql.source"), tr->p->text);
    if (tr->validate)
      gql_trace_attr_add(tr, tr->validate, GQL_STR("graphql.source"),
                         tr->p->text);
  }
  gql_trace_queue_spans(tr, ex ? ex->end : now);
}
