/* Incremental delivery of @defer (graphql-js 17.1's
 * experimentalExecuteIncrementally): the initial result runs in tree mode
 * without the deferred fields (defer.c splits them into execution groups
 * of deferred fragments), then each group runs in a context of its own once
 * its fragments are announced, and the payloads follow: `pending` for the
 * fragments a payload announces, `incremental` for a group's data (at its
 * fragment's id, with the `subPath` below the fragment's object),
 * `completed` when a fragment's groups are all in (with `errors` when one
 * failed: its object was nulled), and `hasNext`. A fragment whose object
 * was nulled, or whose parent failed, is never announced; one without
 * fields of its own left is not either (its nested ones are, at once).
 * Payloads go to the execution's on_done, each when nothing more completes
 * at once. */
#include "deliver.h"

static void pump(inc_state *st);

/* Whether node `n` of `maker`'s tree is still in the response. */
static bool alive(const inc_group *maker, const rnode *n) {
  if (maker && maker->failed)
    return false;
  for (; n; n = n->parent)
    if (n->kind == R_NULL)
      return false;
  return true;
}

static void kill_group(inc_group *g) {
  if (g->dead)
    return;
  g->dead = true;
  for (uint32_t i = 0; i < g->nrecs; i++)
    if (g->recs[i])
      g->recs[i]->ngroups--;
}

static void kill_record(inc_state *st, inc_record *r) {
  r->dead = true;
  for (inc_group *g = st->groups; g; g = g->next)
    for (uint32_t i = 0; i < g->nrecs && !g->delivered; i++)
      if (g->recs[i] == r)
        kill_group(g);
  for (inc_record *c = st->recs; c; c = c->next)
    if (c->parent == r && !c->dead)
      kill_record(st, c);
}

/* settle for an initial result written in direct mode (without a tree),
 * `json` its response: with no error nothing was nulled; else an object
 * stayed when the response still has one at its path. */
static void settle_direct(inc_state *st, const char *json, size_t len) {
  exec_ctx *ctx = st->ctx;
  if (!ctx->nerrs)
    return;
  gql_json_value *resp;
  const gql_json_options o = {.max_depth = UINT32_MAX, .max_size = len + 1};
  const gql_json_value *data =
      gql_json_parse(ctx->arena, json, len, &o, &resp, NULL) == 0
          ? gql_json_get(resp, GQL_STR("data"))
          : NULL;
  for (inc_record *r = st->made.recs; r; r = r->next_made)
    if (!r->dead && !gql_exec_object_at(ctx->arena, data, r->path))
      kill_record(st, r);
  for (inc_group *g = st->made.groups; g; g = g->next_made)
    if (!gql_exec_object_at(ctx->arena, data, g->path_json))
      kill_group(g);
}

/* What context `ctx` made, once it has finished: the fragments and groups
 * whose object did not stay in its response. */
static void settle(inc_state *st, exec_ctx *ctx) {
  const inc_made *m = ctx->group ? &ctx->group->made : &st->made;
  for (inc_record *r = m->recs; r; r = r->next_made)
    if (!r->dead && !alive(ctx->group, r->node))
      kill_record(st, r);
  for (inc_group *g = m->groups; g; g = g->next_made)
    if (!alive(ctx->group, g->node))
      kill_group(g);
}

/* Whether what `maker` made (NULL: the initial result) is all made. */
static bool made(const inc_state *st, const inc_group *maker) {
  return maker ? maker->done : st->ctx->done;
}

/* Whether the payload of what `maker` ran has gone out. */
static bool delivered(const inc_state *st, const inc_group *maker) {
  return maker ? maker->delivered && !maker->failed : st->initial_sent;
}

/* Whether `r` is to be announced now: its parent fragment has completed,
 * or without one (a stream, an outermost @defer), the payload of the
 * context that made it has gone out. */
static bool due(const inc_state *st, const inc_record *r) {
  if (r->id >= 0 || r->dead || r->completed || !made(st, r->maker))
    return false;
  return r->parent ? r->parent->completed && !r->parent->failed
                   : delivered(st, r->maker);
}

/* Announces `r` in the payload's pending, or, a fragment without groups
 * of its own, completes it at once (its nested ones are then due). */
static bool announce(inc_state *st, inc_record *r) {
  if (r->ngroups == 0 && r->usage) {
    r->completed = true;
    return true;
  }
  r->id = st->next_id++;
  gql_buf *b = &st->pend;
  gql_exec_inc_entry_start(b, r->id);
  PUT_LIT(b, ",\"path\":");
  gql_buf_put(b, r->path, r->path_len);
  if (r->label.ptr) {
    PUT_LIT(b, ",\"label\":");
    gql_json_write_string(b, r->label);
  }
  gql_buf_putc(b, '}');
  return true;
}

static bool runnable(const inc_state *st, const inc_group *g) {
  if (g->started || g->dead || !made(st, g->maker))
    return false;
  for (uint32_t i = 0; i < g->nrecs; i++)
    if (g->recs[i]->id < 0 || g->recs[i]->completed)
      return false;
  return true;
}

static void on_group(void *ud, const char *json, size_t len, bool errs);
static void group_done(inc_state *st, inc_group *g, exec_ctx *c, bool failed,
                       const char *data, size_t len);

/* A context for group `g`: the spare one, or a copy of the initial
 * result's (the operation, variables and arena); NULL when out of memory. */
static exec_ctx *take_ctx(inc_state *st, inc_group *g) {
  exec_ctx *c = st->spare;
  st->spare = NULL;
  if (!c) {
    c = gql_arena_alloc(st->ctx->arena, sizeof *c);
    rnode *root = gql_arena_alloc(st->ctx->arena, sizeof *root);
    if (!c || !root)
      return NULL;
    *c = *st->ctx;
    c->own_output = (gql_output){0};
    c->output = &c->own_output;
    gql_buf_init(&c->resp, &st->alc);
    gql_buf_init(&c->bytes, &st->alc);
    c->root = root;
  }
  c->owns = 0; /* (the buffers are incremental.c's) */
  c->aborted = st->ctx->aborted;
  c->errs = NULL;
  c->nerrs = c->cap = 0;
  /* the trace's hooks (without execute_finish): a deferred field's span
   * belongs to the request's trace */
  c->hooks = st->ctx->hooks;
  c->last_stamps = c->owed = false;
  c->on_done = on_group;
  c->ud = g;
  c->group = g;
  c->walking = c->done = false;
  c->pending = 0;
  c->serial = (serial_walk){0};
  *c->root = (rnode){.kind = R_EMPTY, .nullable = true};
  c->resp.len = 0;
  c->bytes.len = 0;
  c->out = &c->bytes;
  return c;
}

/* A group whose fields can be written straight (no @defer or @stream
 * below, a synchronous type) is, as in a plain execution, into its
 * context's response buffer; the others, and streamed items, in tree
 * mode. */
static void run(inc_state *st, inc_group *g, exec_ctx *c) {
  rnode *root = c->root;
  if (g->stream) {
    path_frame *fr = gql_arena_alloc(c->arena, sizeof *fr);
    if (!fr) {
      gql_exec_tree_fail(c, root);
    } else {
      *fr = (path_frame){g->path, NULL, (int64_t)g->index, 0};
      root->nullable = !gql_type_ref_is_non_null(g->item);
      gql_out io;
      out_init(&io, c, g->info->pf, g->item, LEAF_NONE, fr, root);
      io.info = g->info;
      g->fn(g->list, g->index, &io);
      if (!io.written) {
        set_written(&io);
        gql_exec_complete_null(&io);
      }
    }
    return;
  }
  bool direct = false;
  const bool *keep = gql_exec_defer_group_fields(c, g->ps, &direct);
  if (keep && direct) {
    c->out = &c->resp;
    bool failed =
        gql_exec_object_direct_keep(c, g->ps, g->parent, g->path, keep);
    c->walking = false;
    c->done = true;
    if (c->hooks)
      gql_exec_deliver_hooks(c, c->hooks);
    if (c->resp.failed) {
      failed = true;
      gql_exec_add_error(c, "Out of memory.", NULL, UINT32_MAX, NULL);
    }
    group_done(st, g, c, failed, c->resp.data, c->resp.len);
    return;
  }
  gql_exec_object_tree(c, g->ps, g->parent, g->path, root, false);
}

static void start(inc_state *st, inc_group *g) {
  g->started = true;
  exec_ctx *c = take_ctx(st, g);
  if (!c) {
    g->done = g->failed = true;
    g->errors = GQL_EXEC_OOM_ERRORS;
    return;
  }
  g->root = c->root;
  g->ctx = c;
  st->running++;
  bool in_start = st->in_start;
  st->in_start = true;
  c->walking = true;
  run(st, g, c);
  c->walking = false;
  if (!c->done && c->pending == 0)
    gql_exec_finish(c);
  st->in_start = in_start;
  if (!c->done) /* fields pend: the context is the group's until then */
    return;
  g->ctx = NULL;
  if (!st->spare) /* (its buffers are the arena's) */
    st->spare = c;
}

static void fail_record(inc_state *st, inc_record *r, gql_str errors) {
  r->failed = r->completed = true;
  gql_exec_inc_entry_start(&st->comp, r->id);
  PUT_LIT(&st->comp, ",\"errors\":");
  gql_buf_append(&st->comp, errors.ptr, errors.len);
  gql_buf_putc(&st->comp, '}');
  st->errs = true;
  for (inc_group *g = st->groups; g; g = g->next)
    if (g->stream == r && !g->delivered)
      kill_group(g);
  for (inc_record *c = st->recs; c; c = c->next)
    if (c->parent == r && !c->dead)
      kill_record(st, c);
}

/* A streamed item: its value in `items`, or the stream's end with its
 * errors when a non-null item failed. */
static void deliver_item(inc_state *st, inc_group *g) {
  inc_record *r = g->stream;
  g->delivered = true;
  if (g->failed) {
    fail_record(st, r, g->errors);
    return;
  }
  gql_buf *b = &st->incr;
  gql_exec_inc_entry_start(b, r->id);
  PUT_LIT(b, ",\"items\":[");
  gql_buf_append(b, g->data.ptr, g->data.len);
  gql_buf_putc(b, ']');
  if (g->errors.len) {
    PUT_LIT(b, ",\"errors\":");
    gql_buf_append(b, g->errors.ptr, g->errors.len);
    st->errs = true;
  }
  gql_buf_putc(b, '}');
  r->ndone++;
}

static void deliver_group(inc_state *st, inc_group *g) {
  if (g->stream) {
    deliver_item(st, g);
    return;
  }
  g->delivered = true;
  if (g->failed) {
    for (uint32_t i = 0; i < g->nrecs; i++) {
      inc_record *r = g->recs[i];
      if (!r->completed && !r->dead)
        fail_record(st, r, g->errors);
    }
    return;
  }
  const inc_record *r = gql_exec_inc_best(g);
  gql_buf *b = &st->incr;
  gql_exec_inc_entry_start(b, r->id);
  PUT_LIT(b, ",\"data\":");
  gql_buf_append(b, g->data.ptr, g->data.len);
  if (g->errors.len) {
    PUT_LIT(b, ",\"errors\":");
    gql_buf_append(b, g->errors.ptr, g->errors.len);
    st->errs = true;
  }
  gql_exec_inc_sub_path(b, r->path_len, g->path_json, g->path_len);
  gql_buf_putc(b, '}');
  for (uint32_t i = 0; i < g->nrecs; i++)
    g->recs[i]->ndone++;
}

/* Delivers what has completed; true when something changed. */
static bool progress(inc_state *st) {
  bool moved = false;
  /* (each loop starts past the prefix it is done with) */
  while (*st->gdeliv && ((*st->gdeliv)->delivered || (*st->gdeliv)->dead))
    st->gdeliv = &(*st->gdeliv)->next;
  for (inc_group *g = *st->gdeliv; g; g = g->next) {
    if (!g->done || g->delivered || g->dead)
      continue;
    bool open = true;
    for (uint32_t i = 0; i < g->nrecs; i++)
      open &= g->recs[i]->id >= 0 && !g->recs[i]->completed;
    if (!open) {
      kill_group(g);
      continue;
    }
    /* a stream's items in order */
    if (g->stream && g->index != g->stream->first + g->stream->ndone)
      continue;
    deliver_group(st, g);
    moved = true;
    /* what it made is announced with it, in delivery order (the
     * fragments of a stream's items in the items' order) */
    for (inc_record *r = g->made.recs; r; r = r->next_made)
      if (due(st, r))
        announce(st, r);
  }
  while (*st->rcomp && ((*st->rcomp)->completed || (*st->rcomp)->dead))
    st->rcomp = &(*st->rcomp)->next;
  for (inc_record *r = *st->rcomp; r; r = r->next) {
    if (r->id < 0 || r->completed || r->dead || r->ndone < r->ngroups)
      continue;
    r->completed = true;
    gql_exec_inc_entry_start(&st->comp, r->id);
    gql_buf_putc(&st->comp, '}');
    moved = true;
  }
  while (*st->rdue &&
         ((*st->rdue)->id >= 0 || (*st->rdue)->completed || (*st->rdue)->dead))
    st->rdue = &(*st->rdue)->next;
  for (inc_record *r = *st->rdue; r; r = r->next)
    if (due(st, r))
      moved |= announce(st, r);
  while (*st->gstart && ((*st->gstart)->started || (*st->gstart)->dead))
    st->gstart = &(*st->gstart)->next;
  for (inc_group *g = *st->gstart; g; g = g->next)
    if (runnable(st, g)) {
      start(st, g);
      moved = true;
    }
  return moved;
}

static bool has_next(const inc_state *st) {
  for (const inc_record *r = *st->rcomp; r; r = r->next)
    if (r->id >= 0 && !r->completed && !r->dead)
      return true;
  return false;
}

/* The end, once the last payload is out and no group runs (one whose
 * fragment failed may still have fields pending): the memory the execution
 * owns goes with the delivering context's (deliver frees it after this
 * on_done returns). */
static void release(inc_state *st) {
  if (!st->finished && st->finish_hooks) {
    /* the execution's end for the trace: after the last payload; groups
     * still running (fields of a failed fragment) are no longer traced */
    for (inc_group *g = st->groups; g; g = g->next)
      if (g->started && !g->done)
        g->ctx->hooks = NULL;
    const gql_exec_hooks *h = st->finish_hooks;
    st->finish_hooks = NULL;
    h->pub.execute_finish(h->pub.ctx, st->any_errs);
  }
  st->finished = true;
  if (st->running)
    return;
  if (st->sync_done)
    *st->sync_done = true;
  /* (pend, comp, scratch and the groups' buffers are the arena's) */
  if (!st->took_resp) {
    gql_buf_free(&st->incr);
  } else if (st->in_initial) { /* deliver hands it to the output */
    st->ctx->resp = st->incr;
  } else if (st->sync_done) { /* in gql_execute_incremental: the output is
                               * still the caller's */
    gql_output *go = st->ctx->output;
    go->data = st->incr.data;
    go->cap = st->incr.cap;
    go->len = 0;
  } else {
    gql_buf_free(&st->incr);
  }
  st->incr = (gql_buf){0};
  st->spare = NULL;
  exec_ctx *c = st->current;
  if (st->owns & OWN_OUTPUT) {
    if (c == st->ctx)
      c->owns |= OWN_OUTPUT;
    else
      gql_output_free(st->ctx->output);
  }
  c->owns |= st->owns & OWN_ARENA;
}

/* Appends `,KEY[ENTRIES]` (the entries in `b`, which it empties) to pay. */
static void close_list(gql_buf *b, gql_buf *pay, const char *key, size_t klen) {
  if (!b->len)
    return;
  if (gql_buf_reserve(pay, klen + b->len + 2)) {
    char *w = pay->data + pay->len;
    *w++ = ',';
    memcpy(w, key, klen);
    memcpy(w + klen, b->data, b->len);
    w[klen + b->len] = ']';
    pay->len += klen + b->len + 2;
  }
  b->len = 0;
}

/* Hands payload `pay` to on_done. */
static void send_payload(inc_state *st, const gql_buf *pay, bool errs) {
  gql_str oom = GQL_EXEC_OOM_RESPONSE;
  st->any_errs |= errs || pay->failed;
  if (pay->failed)
    st->on_payload(st->ud, oom.ptr, oom.len, true);
  else
    st->on_payload(st->ud, pay->data, pay->len, errs);
}

/* Makes the payload around the incremental entries in st->incr (they stay
 * where they are written: the head goes before them, the completed
 * entries after): {"hasNext", "pending", "incremental", "completed"}. */
static gql_buf *payload(inc_state *st, bool more) {
  gql_buf *b = &st->incr;
  size_t n = b->len, np = st->pend.len;
  size_t hlen = (more ? 15 : 16) + (np ? 11 + np + 1 : 0) + (n ? 15 : 0);
  if (b->failed || st->pend.failed || st->comp.failed ||
      !gql_buf_reserve(b, hlen + 1 + st->comp.len + 16)) {
    b->failed = true;
    return b;
  }
  memmove(b->data + hlen, b->data, n);
  char *w = b->data;
  memcpy(w, more ? "{\"hasNext\":true" : "{\"hasNext\":false", more ? 15 : 16);
  w += more ? 15 : 16;
  if (np) {
    memcpy(w, ",\"pending\":", 11);
    memcpy(w + 11, st->pend.data, np);
    w[11 + np] = ']';
    w += 11 + np + 1;
    st->pend.len = 0;
  }
  if (n)
    memcpy(w, ",\"incremental\":", 15);
  b->len = hlen + n;
  if (n)
    gql_buf_putc(b, ']');
  close_list(&st->comp, b, "\"completed\":", 12);
  gql_buf_putc(b, '}');
  return b;
}

static void pump(inc_state *st) {
  if (st->pumping || st->finished)
    return;
  st->pumping = true;
  while (progress(st))
    ;
  st->pumping = false;
  if (!st->pend.len && !st->incr.len && !st->comp.len)
    return;
  bool more = has_next(st);
  gql_buf *pay = payload(st, more);
  bool errs = st->errs;
  st->errs = false;
  send_payload(st, pay, errs);
  pay->len = 0;
  pay->failed = false; /* (that payload said so) */
  if (!more)
    release(st);
}

/* Group `g` has finished in context `c`: its data (the object's JSON,
 * unless `failed`: the object was nulled) and errors are kept for its
 * delivery. */
static void group_done(inc_state *st, inc_group *g, exec_ctx *c, bool failed,
                       const char *data, size_t len) {
  g->done = true;
  st->running--;
  g->failed = failed;
  if (c->nerrs)
    g->errors = gql_exec_errors_array(c);
  if (!failed) {
    char *d = gql_arena_strndup(c->arena, data, len);
    g->data = d ? (gql_str){d, len} : GQL_STR("{}");
  }
  settle(st, c);
  pump(st);
}

/* A group's context in tree mode has finished: its data and errors, out
 * of `{"errors":[...],"data":...}`. */
static void on_group(void *ud, const char *json, size_t len, bool errs) {
  (void)errs;
  inc_group *g = ud;
  exec_ctx *c = g->ctx;
  inc_state *st = c->inc;
  /* the context delivering now: a group run from pump returns into the
   * delivery of the one that started it */
  exec_ctx *prev = st->current;
  st->current = c;
  if (st->finished) { /* after the last payload: only the memory is left */
    g->done = true;
    st->running--;
    release(st);
    st->current = prev;
    return;
  }
  /* a group whose object was nulled; a non-null item that failed */
  bool failed = c->root->kind == R_NULL && (!g->stream || !c->root->nullable);
  size_t off = 8; /* {"data": */
  if (c->nerrs) {
    gql_buf e;
    gql_buf_init(&e, NULL);
    gql_exec_write_errors(c, &e);
    off = 1 + e.len + 1 + 7;
    gql_buf_free(&e);
  }
  group_done(st, g, c, failed, json + off, len > off ? len - off - 1 : 0);
  if (!st->finished || st->running)
    st->current = prev;
}

/* Appends the entry `e` of st->eager to st->incr at id `id`. */
static void put_entry(inc_state *st, const inc_entry *e, int32_t id) {
  gql_exec_inc_entry_start(&st->incr, id);
  gql_buf_append(&st->incr, st->eager.data + e->off, e->end - e->off);
}

/* The eager groups' entries (st->eager), once the initial result has
 * announced its fragments: a group whose fragments are not all pending is
 * dropped, one that failed fails its fragments, the others are delivered
 * here (progress completes their fragments). Their
 * entries go into st->incr as written when each fragment got the id it
 * was expected to, else one by one with its id. */
static void eager_entries(inc_state *st) {
  gql_buf *e = &st->eager;
  bool as_is = !e->failed;
  for (inc_record *r = st->made.recs; r; r = r->next_made) {
    if (!r->eager)
      continue;
    inc_entry *en = &r->entry;
    bool written = en->walked && !en->failed;
    if (r->dead || r->id < 0 || r->completed || !en->walked) {
      as_is &= !written; /* (its entry is left out) */
      en->walked = false;
      continue;
    }
    if (en->failed || e->failed) {
      en->walked = false;
      fail_record(st, r, en->failed ? en->errors : GQL_EXEC_OOM_ERRORS);
      continue;
    }
    as_is &= r->id == r->pred;
    st->errs |= en->errs;
    r->ndone++; /* (progress completes it: after the failed ones) */
  }
  for (inc_group *g = st->made.groups; g; g = g->next_made) {
    if (!g->eager)
      continue;
    if (g->dead) { /* (its object was nulled: settle_direct) */
      as_is = false;
      continue;
    }
    bool open = g->started;
    for (uint32_t i = 0; i < g->nrecs && open; i++)
      open = g->recs[i]->id >= 0 && !g->recs[i]->completed;
    if (!open) {
      kill_group(g);
      as_is = false;
      continue;
    }
    if (g->failed)
      continue;
    if (e->failed) {
      g->failed = true;
      g->errors = GQL_EXEC_OOM_ERRORS;
      continue;
    }
    const inc_record *r = gql_exec_inc_best(g);
    as_is &= r->id == r->pred;
    g->delivered = true;
    st->errs |= g->entry.errs;
    for (uint32_t i = 0; i < g->nrecs; i++)
      g->recs[i]->ndone++;
  }
  if (!e->failed && as_is) { /* (the same allocator: the output's) */
    gql_buf b = st->incr;
    st->incr = *e;
    *e = b;
  } else if (!e->failed) {
    for (inc_record *r = st->made.recs; r; r = r->next_made)
      if (r->eager && r->entry.walked)
        put_entry(st, &r->entry, r->id);
    for (inc_group *g = st->made.groups; g; g = g->next_made)
      if (g->eager && g->delivered)
        put_entry(st, &g->entry, gql_exec_inc_best(g)->id);
  }
  gql_buf_free(e);
}

/* The initial result has finished: it goes out with the fragments it
 * announces, or alone when there are none. */
static void on_initial(void *ud, const char *json, size_t len, bool errs) {
  inc_state *st = ud;
  st->current = st->ctx;
  gql_buf_free(&st->ctx->bytes); /* (its tree is written) */
  if (st->direct)
    settle_direct(st, json, len);
  else
    settle(st, st->ctx);
  st->initial_sent = true;
  /* what the initial result announces: its fragments, and those nested in
   * ones without groups of their own (announce completes those) */
  for (bool again = true; again;) {
    again = false;
    for (inc_record *r = st->recs; r; r = r->next)
      if (due(st, r) && announce(st, r) && r->completed)
        again = true;
  }
  if (!st->pend.len) {
    gql_buf_free(&st->eager);
    st->any_errs |= errs;
    st->on_payload(st->ud, json, len, errs);
    release(st);
    return;
  }
  /* the pending entries go into the response buffer after the result
   * (its '}' dropped), which then holds the later payloads (release gives
   * it back) */
  gql_buf *r = &st->ctx->resp;
  if (json != r->data || len != r->len) { /* out of memory */
    gql_buf_free(&st->eager);
    send_payload(st, &(gql_buf){.failed = true}, true);
    release(st);
    return;
  }
  r->len--;
  close_list(&st->pend, r, "\"pending\":", 10);
  PUT_LIT(r, ",\"hasNext\":true}");
  send_payload(st, r, errs);
  gql_buf_free(&st->incr);
  st->incr = *r;
  st->incr.len = 0;
  st->incr.failed = false;
  *r = (gql_buf){0};
  st->took_resp = true;
  if (st->eager.data || st->eager.failed)
    eager_entries(st);
  st->in_initial = true;
  pump(st);
  st->in_initial = false;
}

int gql_exec_incremental(exec_ctx *ctx, const void *root_value) {
  const gql_prepared *p = ctx->p;
  inc_state *st = gql_arena_alloc(ctx->arena, sizeof *st);
  ctx->root = gql_arena_alloc(ctx->arena, sizeof *ctx->root);
  if (!st || !ctx->root) {
    gql_exec_add_error(ctx, "Out of memory.", NULL, UINT32_MAX, NULL);
    gql_exec_errors_only(ctx, true);
    return 0;
  }
  bool sync_done = false;
  inc_record **latest =
      gql_arena_alloc(ctx->arena, sizeof *latest * (p->ndefers + 1));
  if (!latest) {
    gql_exec_add_error(ctx, "Out of memory.", NULL, UINT32_MAX, NULL);
    gql_exec_errors_only(ctx, true);
    return 0;
  }
  memset(latest, 0, sizeof *latest * (p->ndefers + 1));
  *st =
      (inc_state){.ctx = ctx,
                  .rtail = &st->recs,
                  .gtail = &st->groups,
                  .gdeliv = &st->groups,
                  .gstart = &st->groups,
                  .rcomp = &st->recs,
                  .rdue = &st->recs,
                  .made = {.rtail = &st->made.recs, .gtail = &st->made.groups},
                  .latest = latest,
                  .owns = ctx->owns,
                  .sync_done = &sync_done,
                  .on_payload = ctx->on_done,
                  .ud = ctx->ud};
  /* the buffers the execution keeps to itself (entries, the groups'
   * contexts) die with the arena: no malloc and free of a few hundred bytes
   * each per request */
  st->alc = gql_arena_allocator(ctx->arena);
  gql_buf_init(&st->pend, &st->alc);
  gql_buf_init(&st->incr, NULL);
  gql_buf_init(&st->comp, &st->alc);
  /* room for a few entries each, without the growth's calls */
  char *room = gql_arena_alloc(ctx->arena, 512);
  if (room) {
    st->pend.data = room;
    st->comp.data = room + 256;
    st->pend.cap = st->comp.cap = 256;
  }
  gql_buf_init(&st->scratch, &st->alc);
  /* (the output's memory: eager_entries may make it st->incr; freed by
   * on_initial) */
  gql_buf_init(&st->eager, ctx->resp.alc);
  ctx->owns = 0;
  ctx->on_done = on_initial;
  ctx->ud = st;
  ctx->walking = ctx->done = false;
  ctx->pending = 0;
  ctx->serial = (serial_walk){0};
  ctx->inc = st;
  ctx->fast = NULL;
  ctx->group = NULL;
  if (ctx->hooks && ctx->hooks->pub.execute_finish) {
    gql_exec_hooks *h = gql_arena_alloc(ctx->arena, sizeof *h);
    if (h) { /* (out of memory: the trace ends with the initial result) */
      *h = *ctx->hooks;
      h->pub.execute_finish = NULL;
      st->finish_hooks = ctx->hooks;
      ctx->hooks = h;
    }
  }
  gql_buf_init(&ctx->bytes, ctx->output->alc);
  *ctx->root = (rnode){.kind = R_EMPTY, .nullable = true};
  /* direct mode as gql_execute's when no field can pend, none streams and
   * nothing is traced: defer.c splits the objects as the walk meets them
   * (a stream's list and the tracer's hooks need tree mode) */
  st->direct = !p->any_stream && !ctx->hooks && p->kind == GQL_OP_QUERY &&
               ctx->s->types[p->root_type].sync;
  ctx->walking = true;
  if (st->direct) {
    ctx->conds_bad = ctx->cond_check;
    ctx->cond_check = true; /* (the groups' contexts copy it) */
    ctx->out = &ctx->resp;
    ctx->resp.len = 0;
    gql_buf_put(&ctx->resp, "{\"data\":", 8);
    bool failed = gql_exec_object_direct(ctx, p->root, root_value, NULL);
    ctx->walking = false;
    ctx->done = true;
    gql_exec_finish_direct(ctx, failed);
    if (sync_done) /* (the arena, ctx's and st's, may be freed) */
      return 0;
    st->sync_done = NULL;
    return 1;
  } else {
    ctx->out = &ctx->bytes;
    gql_exec_object_tree(ctx, p->root, root_value, NULL, ctx->root,
                         p->kind == GQL_OP_MUTATION);
  }
  ctx->walking = false;
  if (!ctx->done && ctx->pending == 0)
    gql_exec_finish(ctx);
  if (sync_done)
    return 0;
  st->sync_done = NULL;
  return 1;
}
