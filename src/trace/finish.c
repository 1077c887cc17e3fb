/* A trace's spans become records (records.c) when its execution finishes:
 * ids from one random draw, the execute span's record from the
 * operation's memo, resolve records in one pass when the first calls came
 * in plan order (entry mode), and the records handed to the tracer's queue
 * (exporter.c). */
#include "trace.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

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
uint32_t gql_trace_entry_order(gql_trace *tr) {
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

const otlp_resolve *gql_trace_resolve_of(const gql_trace *tr,
                                         const trace_span *s, otlp_resolve *r) {
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
gql_buf *gql_trace_queue_open(gql_trace *tr, uint64_t tick, uint32_t nspans) {
  if (tr->queued)
    return NULL;
  tr->queued = true;
  if (!tr->tracer || !tr->nspans)
    return NULL;
  gql_tracer *t = tr->tracer;
  uint64_t rng = (uint64_t)(uintptr_t)tr ^ tick ^ 0x9e3779b97f4a7c15u;
  uint64_t secs =
      gql_trace_clock_to_ns(&t->clock, tr->spans[0]->start) / 1000000000u;
  uint64_t z = gql_trace_random(&rng), w = z * 0xd6e8feb86659fd93u;
  w ^= w >> 32;
  otlp_ids ids = {.trace_hi = (secs << 32) | (w & 0xffffffffu), .trace_lo = z};
  uint64_t base = w * 0x9e3779b97f4a7c15u ^ (z >> 29);
  if (tr->ids_fixed) { /* said already (a log line, a traceparent sent) */
    ids = (otlp_ids){.trace_hi = tr->id_hi, .trace_lo = tr->id_lo};
    base = tr->id_base;
  }
  if (tr->remote_parent)
    ids = (otlp_ids){tr->remote_hi, tr->remote_lo, tr->remote_parent,
                     tr->remote_state};
  gql_buf *b = &tr->scratch;
  b->len = 0;
  gql_otlp_trace_header(b, &ids, base, nspans);
  return b;
}

void gql_trace_queue_spans(gql_trace *tr, uint64_t tick) {
  gql_buf *b = gql_trace_queue_open(tr, tick, tr->nspans);
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
    gql_otlp_record(b, s, parent, gql_trace_resolve_of(tr, s, &r));
  }
  gql_tracer_push(t, b, tr->nspans); /* a failed b: counted as dropped */
}

/* Ends the execute span `ex` (NULL: none) at `end`, with its tags unless
 * they come from the operation's image. */
void gql_trace_execute_end(gql_trace *tr, trace_span *ex, bool tags,
                           uint64_t end) {
  if (!ex)
    return;
  if (tags)
    gql_trace_execute_tags(tr, ex);
  ex->end = end;
  ex->ended = true;
}

/* gql_trace_on_execute_finish's passes and gql_trace_queue_spans' in one, for a
 * trace whose resolve spans all come from lean_first (each has one planned
 * field, its ordinal's: its stamps are stamps[ordinal]), with cached answers
 * and record blobs, and without subscriber calls or source tags at the finish:
 * in creation order (a parent before its children), a span's own end
 * (its completions and stamps) goes into stamps[ordinal], where its
 * children read it (the reverse pass of gql_trace_on_execute_finish reads the
 * parent's own end the same way), and its record is written at once. */
void gql_trace_finish_lean(gql_trace *tr, uint64_t now) {
  trace_span *ex = tr->exec;
  gql_trace_execute_end(tr, ex, true, now);
  gql_buf *b = gql_trace_queue_open(tr, now, tr->nspans);
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
      gql_otlp_record(b, s, parent, gql_trace_resolve_of(tr, s, &r));
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
      gql_otlp_record(b, s, parent, gql_trace_resolve_of(tr, s, &r));
    }
  }
  gql_tracer_push(tr->tracer, b, tr->nspans);
}

/* gql_trace_finish_entry's records of the stamped first calls when every one is
 * by reference (tr->refs), without errors, and the first calls came in
 * the plan's order (gql_trace_entry_order's usual case): one pass in ordinal
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

/* gql_trace_finish_lean in entry mode: the spans that are not resolve spans
 * (execute, parse, validate: structs, before any resolve span), then one
 * record per stamped first call, in the order of those calls, the same
 * as gql_trace_finish_lean's (start, end from the stamps, parent, blob). */
void gql_trace_finish_entry(gql_trace *tr, uint64_t now) {
  trace_span *ex = tr->exec;
  tr->entry = false; /* done: nothing for gql_trace_end to make */
  op_memo *m = &tr->memo;
  /* the execute span's record from the memo's image: nothing on it but
   * what gql_trace_execute_tags would add (entry mode: no source or variable
   * tags) */
  bool clean = ex && tr->memo_hit && tr->p && !ex->attrs && !ex->error_type &&
               !ex->events && !tr->o.source && !tr->o.nvariables;
  bool img = clean && m->exec_len && m->exec_nosig == tr->o.no_signature;
  gql_trace_execute_end(tr, ex, !img, now);
  /* the span count: set when the records are made */
  gql_buf *b = gql_trace_queue_open(tr, now, tr->nspans);
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
    gql_otlp_record(b, s, parent, gql_trace_resolve_of(tr, s, &r));
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
  nfirst = gql_trace_entry_order(tr);
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
    gql_otlp_record(b, &s, parent, gql_trace_resolve_of(tr, &s, &r));
  }
  gql_tracer_push(tr->tracer, b, tr->nspans + nfirst);
}
