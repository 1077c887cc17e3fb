/* gql_execute: sets up the execution (direct mode on the stack when every
 * type below the root is synchronous, else tree mode in the arena),
 * answers what ends before any field (an aborting hook, invalid variables,
 * an unsupported operation), walks the root and finishes the response in
 * place: a synchronous subtree writes JSON straight into the output
 * buffer, and a non-null violation truncates the buffer back to the
 * nearest nullable value and writes null there. */
#include "deliver.h"
#include "walk.h"

/* Sets the members every execution reads (tree mode's are gql_exec_tree's, the
 * variables' vars_init's). */
static inline void ctx_init(exec_ctx *ctx, const gql_prepared *p,
                            const gql_execute_params *params, gql_arena *arena,
                            bool own_arena) {
  ctx->p = p;
  ctx->s = p->s;
  ctx->arena = arena;
  ctx->owns = own_arena ? OWN_ARENA : 0;
  ctx->aborted = false;
  ctx->last_stamps = ctx->owed = ctx->cond_check = false;
  ctx->errs = NULL;
  ctx->nerrs = ctx->cap = 0;
  ctx->hooks = NULL; /* answer_early's */
  ctx->context = params->context;
  ctx->on_done = params->on_done;
  ctx->ud = params->ud;
  gql_output *go = params->output;
  if (GQL_UNLIKELY(!go)) {
    ctx->own_output = (gql_output){0};
    go = &ctx->own_output;
    ctx->owns |= OWN_OUTPUT;
  }
  ctx->output = go;
  ctx->out = &ctx->resp;
  ctx->resp.data = go->data; /* member by member: no clearing first */
  ctx->resp.len = 0;
  ctx->resp.cap = go->cap;
  ctx->resp.alc = go->alc; /* NULL: libc, as gql_alc_* take it */
  ctx->resp.failed = false;
  ctx->vars = ctx->slots = NULL; /* read only when the operation has
                                  * variables: see vars_init */
}

/* The coerced variables and the argument slots that depend on them: in the
 * context when they are few, else in the arena. False when out of memory. */
static bool vars_init(exec_ctx *ctx) {
  const gql_prepared *p = ctx->p;
  ctx->vars =
      p->nvars < GQL_ARRAY_LEN(ctx->few_vars)
          ? ctx->few_vars
          : gql_arena_alloc(ctx->arena, sizeof *ctx->vars * (p->nvars + 1));
  if (p->nslots < GQL_ARRAY_LEN(ctx->few_slots)) {
    ctx->slots = ctx->few_slots;
    for (uint32_t i = 0; i < p->nslots; i++)
      ctx->slots[i] = NULL;
  } else {
    ctx->slots =
        gql_arena_alloc(ctx->arena, sizeof *ctx->slots * (p->nslots + 1));
    if (ctx->slots)
      memset(ctx->slots, 0, sizeof *ctx->slots * (p->nslots + 1));
  }
  return ctx->vars && ctx->slots;
}

/* Answers the requests that end before any field runs: an execute_start
 * hook aborting, a subscription, variables that are not JSON or do not
 * coerce, an operation type without a root type. Also coerces the
 * variables. 1 when it answered (on_done has been called), 0 when the
 * fields are to run, GQL_ENOMEM. */
/* The phase gql_exec_execute_sub runs, for answer_early to take: handed
 * over beside gql_execute's parameters so that gql_execute's own code
 * (every query's) stays as it is. */
static _Thread_local exec_sub *next_sub;

static __attribute__((noinline)) int
answer_early(exec_ctx *ctx, const gql_execute_params *params) {
  const gql_prepared *p = ctx->p;
  gql_arena *arena = ctx->arena;
  if (params->trace && params->hooks)
    return GQL_EINVAL;
  if ((p->nvars || p->nslots) && !vars_init(ctx))
    return GQL_ENOMEM;
  if (params->trace) {
    ctx->hooks = gql_exec_trace_hooks(params->trace);
  } else if (params->hooks) { /* an embedder's: every call asks for both */
    ctx->hooks =
        gql_exec_hooks_asking(ctx, &(gql_exec_hooks){.pub = *params->hooks});
    if (!ctx->hooks)
      return GQL_ENOMEM;
  }
  if (ctx->hooks && ctx->hooks->pub.execute_start &&
      ctx->hooks->pub.execute_start(ctx->hooks->pub.ctx)) {
    /* Aborted before the executor: nothing runs. */
    ctx->aborted = true;
    gql_exec_add_error(ctx, "Execution aborted.", NULL, UINT32_MAX, NULL);
    gql_exec_errors_only(ctx, false);
    return 1;
  }
  /* field_direct reads an answer per planned field with no bound check:
   * hooks without one for each get answers that all ask */
  if (ctx->hooks && (!ctx->hooks->calls || ctx->hooks->ncalls < p->nplanned)) {
    gql_exec_hooks *c = gql_exec_hooks_asking(ctx, ctx->hooks);
    if (!c)
      return GQL_ENOMEM;
    ctx->hooks = c;
  }
  const gql_exec_hooks *h = ctx->hooks;
  ctx->last_stamps = h && h->last_stamps && h->stamps && h->now &&
                     !p->root_error && p->s->types[p->root_type].sync;
  exec_sub *sub = NULL;
  if (p->kind == GQL_OP_SUBSCRIPTION) {
    sub = next_sub;
    next_sub = NULL;
    if (sub)
      sub->ctx = ctx;
  }
  ctx->sub = sub;
  if (p->kind == GQL_OP_SUBSCRIPTION && !sub && !params->subscription_once) {
    gql_exec_add_error(
        ctx,
        "Subscriptions are not supported: gql executes queries and "
        "mutations only.",
        NULL, p->op ? p->op->h.start : UINT32_MAX, NULL);
    gql_exec_errors_only(ctx, false);
    return 1;
  }
  /* Variables. */
  const gql_json_value *inputs = params->variables;
  if (!inputs && params->variables_json) {
    gql_json_value *parsed;
    gql_json_error je;
    if (gql_json_parse(arena, params->variables_json, params->variables_len,
                       NULL, &parsed, &je) < 0) {
      char *m = gql_arena_sprintf(arena, "Variables are invalid JSON: %s",
                                  je.message);
      gql_exec_add_error(ctx, m ? m : "Variables are invalid JSON.", NULL,
                         UINT32_MAX, NULL);
      gql_exec_errors_only(ctx, false);
      return 1;
    }
    inputs = parsed;
  }
  if (p->nvars) {
    gql_error_list el;
    gql_error_list_init(&el, arena, 50);
    coerce_ctx cc = {
        .s = p->s, .arena = arena, .var_defs = p->vars, .nvars = p->nvars};
    if (gql_exec_coerce_variables(&cc, p->text, inputs, ctx->vars, &el) < 0) {
      for (uint32_t i = 0; i < el.count; i++) {
        gql_exec_add_error(ctx, el.items[i].message, NULL, UINT32_MAX, NULL);
        exec_error *e = &ctx->errs[ctx->nerrs - 1];
        e->locs = el.items[i].locations;
        e->nlocs = el.items[i].nlocations;
      }
      if (el.truncated) /* graphql-js maxErrors: 50 */
        gql_exec_add_error(ctx,
                           "Too many errors processing variables, error limit "
                           "reached. Execution aborted.",
                           NULL, UINT32_MAX, NULL);
      gql_exec_errors_only(ctx, false);
      return 1;
    }
  }
  /* a condition's variable without a boolean: the sets that use one check
   * their conditions as they are collected */
  ctx->cond_check = p->bad_condition;
  for (uint32_t i = 0; i < p->nvars && !ctx->cond_check; i++)
    ctx->cond_check = p->vars[i].in_condition &&
                      (!ctx->vars[i] || ctx->vars[i]->kind != GQL_JSON_BOOL);
  ctx->conds_bad = ctx->cond_check;
  ctx->inc = NULL; /* (read where the walk looks first: a direct-mode
                    * context's is set only here and by incremental.c) */
  ctx->fast = NULL;
  if (p->root_error) {
    uint32_t off = p->op->h.start;
    gql_exec_add_error(ctx, p->root_error, NULL, off, NULL);
    gql_exec_errors_only(ctx, true);
    return 1;
  }
  return 0;
}

/* gql_execute, telling also whether fields pend: 1 when they do (on_done
 * comes when the last completes), as gql_execute_incremental tells. */
__attribute__((always_inline)) static inline int
execute(const gql_prepared *p, const gql_execute_params *params) {
  if (!p || !params || !params->on_done)
    return GQL_EINVAL;
  gql_arena *arena = params->arena;
  bool own_arena = !arena;
  if (own_arena && !(arena = gql_arena_new(NULL)))
    return GQL_ENOMEM;
  /* Only tree mode can outlive this call (when a field pends): every other
   * execution, early answers included, keeps its context on the stack. */
  bool tree = !p->root_error && !p->s->types[p->root_type].sync;
  exec_ctx direct;
  exec_ctx *ctx = tree ? gql_arena_alloc(arena, sizeof *ctx) : &direct;
  if (!ctx) {
    gql_arena_free(own_arena ? arena : NULL);
    return GQL_ENOMEM;
  }
  ctx_init(ctx, p, params, arena, own_arena);
  if (GQL_UNLIKELY(params->hooks || params->trace || p->answer_early ||
                   (!params->variables && params->variables_json))) {
    int rc = answer_early(ctx, params);
    if (rc < 0)
      gql_arena_free(own_arena ? arena : NULL);
    if (rc)
      return rc < 0 ? rc : 0;
  }
  if (GQL_UNLIKELY(tree))
    return gql_exec_tree(ctx, params->root_value);
  gql_buf_put(&ctx->resp, "{\"data\":", 8);
  bool failed = exec_object_direct(ctx, p->root, params->root_value, NULL);
  gql_exec_finish_direct(ctx, failed);
  return 0;
}

int gql_execute(const gql_prepared *p, const gql_execute_params *params) {
  int rc = execute(p, params);
  return rc > 0 ? 0 : rc; /* pending: on_done tells */
}

int gql_execute_incremental(const gql_prepared *p,
                            const gql_execute_params *params) {
  if (!p || !params || !params->on_done)
    return GQL_EINVAL;
  if (!p->incremental || p->root_error) /* 1 too when fields pend */
    return execute(p, params);
  gql_arena *arena = params->arena;
  bool own_arena = !arena;
  if (own_arena && !(arena = gql_arena_new(NULL)))
    return GQL_ENOMEM;
  /* an untraced eager_only operation ends in this call, and its context
   * is on the stack; incremental.c's may outlive the call */
  bool eager = p->eager_only && !params->hooks && !params->trace;
  exec_ctx stack;
  exec_ctx *ctx = eager ? &stack : gql_arena_alloc(arena, sizeof *ctx);
  if (!ctx) {
    gql_arena_free(own_arena ? arena : NULL);
    return GQL_ENOMEM;
  }
  ctx_init(ctx, p, params, arena, own_arena);
  if (params->hooks || params->trace || p->answer_early ||
      (!params->variables && params->variables_json)) {
    int rc = answer_early(ctx, params);
    if (rc < 0)
      gql_arena_free(own_arena ? arena : NULL);
    if (rc)
      return rc < 0 ? rc : 0;
  }
  if (eager)
    return gql_exec_eager(ctx, params->root_value);
  return gql_exec_incremental(ctx, params->root_value);
}

int gql_exec_execute_sub(const gql_prepared *p,
                         const gql_execute_params *params, exec_sub *sub) {
  if (p->kind != GQL_OP_SUBSCRIPTION)
    return GQL_EINVAL;
  next_sub = sub; /* answer_early takes it: a subscription always goes there */
  int rc = gql_execute(p, params);
  next_sub = NULL; /* (an early failure did not) */
  return rc;
}

/* The protocol given as the trace it would begin (see
 * gql_exec_trace_hooks): the tests' way in, gql_execute's code path. */
int gql_exec_run(const gql_prepared *p, const gql_execute_params *params,
                 const gql_exec_hooks *hooks) {
  gql_execute_params q = *params;
  q.hooks = NULL;
  q.trace = (gql_trace *)(void *)(uintptr_t)hooks;
  return gql_execute(p, &q);
}
