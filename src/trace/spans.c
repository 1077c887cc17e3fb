/* A trace's spans: their memory (the first in the trace, the rest in arena
 * slabs), the per-trace table of paths (collapsing off), attributes and
 * error events, and the tags graphql-js's dd-trace plugin puts on the
 * execute and resolve spans. */
#include "trace.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Spans come from slabs allocated with each growth of the span array: one
 * arena call per doubling, not one per span. */
trace_span *gql_trace_span_alloc(gql_trace *tr, uint8_t kind, gql_str name) {
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

trace_span *gql_trace_span_new(gql_trace *tr, uint8_t kind, gql_str name) {
  trace_span *s = gql_trace_span_alloc(tr, kind, name);
  if (s)
    s->start = now_of(tr);
  return s;
}

void gql_trace_attr_add(gql_trace *tr, trace_span *s, gql_str key, gql_str v) {
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

gql_str gql_trace_arena_str(gql_trace *tr, const char *p, size_t n) {
  char *c = gql_arena_strndup(tr->arena, p ? p : "", p ? n : 0);
  return c ? (gql_str){c, n} : GQL_STR("");
}

/* One dd.graphql.query.error event per GraphQL error. */
void gql_trace_error_event(gql_trace *tr, trace_span *s, const char *message,
                           const gql_location *locs, uint32_t nlocs,
                           const char *path_json) {
  trace_event *e = gql_arena_alloc(tr->arena, sizeof *e);
  if (!e)
    return;
  *e = (trace_event){.name = "dd.graphql.query.error",
                     .type = GQL_STR("GraphQLError"),
                     .message =
                         gql_trace_arena_str(tr, message, strlen(message))};
  e->time_ns =
      gql_trace_clock_to_ns(tr->tracer ? &tr->tracer->clock : NULL, now_of(tr));
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
        e->path[e->npath++] =
            gql_trace_arena_str(tr, it->string.ptr, it->string.len);
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
  gql_str s = gql_trace_arena_str(tr, b.data, b.failed ? 0 : b.len);
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

void gql_trace_execute_tags(gql_trace *tr, trace_span *s) {
  const gql_prepared *p = tr->p;
  if (!p)
    return;
  const gql_ast_operation *op = p->op;
  const char *t = op_type(p->kind);
  s->name = gql_cstr(t);
  gql_trace_attr_add(tr, s, GQL_STR("graphql.operation.type"), gql_cstr(t));
  if (op && op->name.len)
    gql_trace_attr_add(tr, s, GQL_STR("graphql.operation.name"),
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
    gql_trace_attr_add(tr, s, GQL_STR("graphql.source"), p->text);
    gql_trace_attr_add(tr, s, GQL_STR("graphql.document"), p->text);
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
          gql_trace_attr_add(tr, s, var_key(tr, m->key),
                             value_text(tr, &m->value));
      }
  }
}

/* A resolve span's own tags: its field name, path and type, and the
 * resource made from them, go with the record (resolve_attrs). */
void gql_trace_resolve_tags(gql_trace *tr, trace_span *s) {
  const gql_ast_selection *n = s->node;
  if (tr->o.source && n && n->h.end <= tr->p->text.len)
    gql_trace_attr_add(
        tr, s, GQL_STR("graphql.source"),
        (gql_str){tr->p->text.ptr + n->h.start, n->h.end - n->h.start});
}

/* graphql.variables.<name> for the arguments given as allowed variables,
 * read during the first call (the values live in the execution). */
void gql_trace_variable_tags(gql_trace *tr, trace_span *s,
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
      gql_trace_attr_add(tr, s, var_key(tr, name), value_text(tr, val));
  }
}
