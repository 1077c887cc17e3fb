/* The operation signature, the execute span's resource: Apollo's engine
 * reporting signature as dd-trace vendors it. The document is copied with
 * literals hidden, aliases dropped and lists sorted, printed with the
 * graphql-js printer, and its whitespace squeezed. */
#include "trace.h"

#include <string.h>

typedef struct sig {
  gql_arena *arena;
  bool failed;
} sig;

static void *dup_node(sig *g, const void *node, size_t size) {
  void *c = gql_arena_alloc(g->arena, size);
  if (!c) {
    g->failed = true;
    return NULL;
  }
  memcpy(c, node, size);
  return c;
}

static int cmp_str(const char *a, size_t an, const char *b, size_t bn) {
  size_t n = an < bn ? an : bn;
  int c = n ? memcmp(a, b, n) : 0;
  if (c)
    return c;
  return an < bn ? -1 : an > bn;
}

/* Int and Float → 0, strings → "", lists → [], objects → {}. */
static gql_ast_value *hide_value(sig *g, gql_ast_value *v) {
  if (!v)
    return NULL;
  switch (v->h.kind) {
  case GQL_AST_INT_VALUE:
  case GQL_AST_FLOAT_VALUE: {
    gql_ast_value *c = dup_node(g, v, sizeof *v);
    if (c) {
      c->h.kind = GQL_AST_INT_VALUE;
      c->u.raw = GQL_STR("0");
    }
    return c;
  }
  case GQL_AST_STRING_VALUE: {
    gql_ast_value *c = dup_node(g, v, sizeof *v);
    if (c) {
      c->u.string.value = GQL_STR("");
      c->u.string.block = false;
    }
    return c;
  }
  case GQL_AST_LIST_VALUE: {
    gql_ast_value *c = dup_node(g, v, sizeof *v);
    if (c) {
      c->u.list.items = NULL;
      c->u.list.count = 0;
    }
    return c;
  }
  case GQL_AST_OBJECT_VALUE: {
    gql_ast_value *c = dup_node(g, v, sizeof *v);
    if (c) {
      c->u.fields.items = NULL;
      c->u.fields.count = 0;
    }
    return c;
  }
  default:
    return v;
  }
}

/* A copy of the pointer array (count items of `size`-byte pointers). */
static void **dup_array(sig *g, void **items, uint32_t count) {
  if (!count)
    return NULL;
  void **c = dup_node(g, items, sizeof *items * count);
  return c;
}

static void args_hide_sort(sig *g, gql_ast_arguments *args) {
  gql_ast_argument **a =
      (gql_ast_argument **)dup_array(g, (void **)args->items, args->count);
  if (!a) {
    args->count = 0;
    return;
  }
  for (uint32_t i = 0; i < args->count; i++) {
    gql_ast_argument *c = dup_node(g, a[i], sizeof *c);
    if (!c)
      return;
    c->value = hide_value(g, c->value);
    a[i] = c;
  }
  /* Insertion sort: stable, and the lists are short. */
  for (uint32_t i = 1; i < args->count; i++) {
    gql_ast_argument *x = a[i];
    uint32_t j = i;
    while (j > 0 && cmp_str(a[j - 1]->name.ptr, a[j - 1]->name.len, x->name.ptr,
                            x->name.len) > 0) {
      a[j] = a[j - 1];
      j--;
    }
    a[j] = x;
  }
  args->items = a;
}

static void directives_copy(sig *g, gql_ast_directives *ds, bool sort) {
  if (!ds->count)
    return;
  gql_ast_directive **d =
      (gql_ast_directive **)dup_array(g, (void **)ds->items, ds->count);
  if (!d) {
    ds->count = 0;
    return;
  }
  for (uint32_t i = 0; i < ds->count; i++) {
    gql_ast_directive *c = dup_node(g, d[i], sizeof *c);
    if (!c)
      return;
    args_hide_sort(g, &c->args);
    d[i] = c;
  }
  for (uint32_t i = 1; sort && i < ds->count; i++) {
    gql_ast_directive *x = d[i];
    uint32_t j = i;
    while (j > 0 && cmp_str(d[j - 1]->name.ptr, d[j - 1]->name.len, x->name.ptr,
                            x->name.len) > 0) {
      d[j] = d[j - 1];
      j--;
    }
    d[j] = x;
  }
  ds->items = d;
}

static int kind_rank(int kind) {
  return kind == GQL_AST_FIELD ? 0 : kind == GQL_AST_FRAGMENT_SPREAD ? 1 : 2;
}

/* lodash sortBy(selections, 'kind', 'name.value'): inline fragments have no
 * name, so they keep their order among themselves. */
static int cmp_selection(const gql_ast_selection *a,
                         const gql_ast_selection *b) {
  int ra = kind_rank(a->h.kind), rb = kind_rank(b->h.kind);
  if (ra != rb)
    return ra - rb;
  if (ra == 2)
    return 0;
  return cmp_str(a->name.ptr, a->name.len, b->name.ptr, b->name.len);
}

static gql_ast_selection_set *selection_set_copy(sig *g,
                                                 gql_ast_selection_set *ss);

static gql_ast_selection *selection_copy(sig *g, gql_ast_selection *s) {
  gql_ast_selection *c = dup_node(g, s, sizeof *c);
  if (!c)
    return s;
  if (c->h.kind == GQL_AST_FIELD) {
    c->alias = (gql_ast_name){0};
    args_hide_sort(g, &c->args);
    directives_copy(g, &c->directives, false);
  } else {
    directives_copy(g, &c->directives, true);
  }
  if (c->selection_set)
    c->selection_set = selection_set_copy(g, c->selection_set);
  return c;
}

static gql_ast_selection_set *selection_set_copy(sig *g,
                                                 gql_ast_selection_set *ss) {
  gql_ast_selection_set *c = dup_node(g, ss, sizeof *c);
  if (!c)
    return ss;
  uint32_t n = c->selections.count;
  gql_ast_selection **s =
      (gql_ast_selection **)dup_array(g, (void **)c->selections.items, n);
  if (!s)
    return c;
  for (uint32_t i = 0; i < n; i++)
    s[i] = selection_copy(g, s[i]);
  for (uint32_t i = 1; i < n; i++) {
    gql_ast_selection *x = s[i];
    uint32_t j = i;
    while (j > 0 && cmp_selection(s[j - 1], x) > 0) {
      s[j] = s[j - 1];
      j--;
    }
    s[j] = x;
  }
  c->selections.items = s;
  return c;
}

static void variables_copy(sig *g, gql_ast_variable_definitions *vs) {
  uint32_t n = vs->count;
  gql_ast_variable_definition **v =
      (gql_ast_variable_definition **)dup_array(g, (void **)vs->items, n);
  if (!v) {
    vs->count = 0;
    return;
  }
  for (uint32_t i = 0; i < n; i++) {
    gql_ast_variable_definition *c = dup_node(g, v[i], sizeof *c);
    if (!c)
      return;
    c->description = NULL;
    c->default_value = hide_value(g, c->default_value);
    directives_copy(g, &c->directives, false);
    v[i] = c;
  }
  for (uint32_t i = 1; i < n; i++) {
    gql_ast_variable_definition *x = v[i];
    gql_ast_name xn = x->variable->u.name;
    uint32_t j = i;
    while (j > 0) {
      gql_ast_name pn = v[j - 1]->variable->u.name;
      if (cmp_str(pn.ptr, pn.len, xn.ptr, xn.len) <= 0)
        break;
      v[j] = v[j - 1];
      j--;
    }
    v[j] = x;
  }
  vs->items = v;
}

static gql_ast_node *definition_copy(sig *g, gql_ast_node *d) {
  if (d->kind == GQL_AST_OPERATION_DEFINITION) {
    gql_ast_operation *c = dup_node(g, d, sizeof *c);
    if (!c)
      return d;
    c->description = NULL;
    variables_copy(g, &c->variables);
    directives_copy(g, &c->directives, false);
    c->selection_set = selection_set_copy(g, c->selection_set);
    return &c->h;
  }
  if (d->kind == GQL_AST_FRAGMENT_DEFINITION) {
    gql_ast_fragment *c = dup_node(g, d, sizeof *c);
    if (!c)
      return d;
    c->description = NULL;
    directives_copy(g, &c->directives, true);
    c->selection_set = selection_set_copy(g, c->selection_set);
    return &c->h;
  }
  return d;
}

/* ---- which definitions the operation uses */

static const gql_ast_fragment *find_fragment(const gql_document *doc,
                                             gql_ast_name name) {
  for (uint32_t i = 0; i < doc->definitions.count; i++) {
    const gql_ast_node *d = doc->definitions.items[i];
    if (d->kind != GQL_AST_FRAGMENT_DEFINITION)
      continue;
    const gql_ast_fragment *f = (const gql_ast_fragment *)d;
    if (f->name.len == name.len && memcmp(f->name.ptr, name.ptr, name.len) == 0)
      return f;
  }
  return NULL;
}

/* Marks the fragments used under `ss` in keep[] (indices of definitions).
 * Depth-bounded by the parser's nesting limit; each fragment is visited
 * once. */
static void mark_used(const gql_document *doc, const gql_ast_selection_set *ss,
                      bool *keep) {
  if (!ss)
    return;
  for (uint32_t i = 0; i < ss->selections.count; i++) {
    const gql_ast_selection *s = ss->selections.items[i];
    if (s->h.kind == GQL_AST_FRAGMENT_SPREAD) {
      const gql_ast_fragment *f = find_fragment(doc, s->name);
      if (!f)
        continue;
      for (uint32_t k = 0; k < doc->definitions.count; k++)
        if (doc->definitions.items[k] == &f->h && !keep[k]) {
          keep[k] = true;
          mark_used(doc, f->selection_set, keep);
        }
    } else {
      mark_used(doc, s->selection_set, keep);
    }
  }
}

/* Whitespace runs → one space, then no space next to a character outside
 * [_a-zA-Z0-9]. */
static bool is_word(char c) {
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9');
}
static bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
         c == '\v';
}
static size_t squeeze(char *s, size_t n) {
  size_t w = 0;
  for (size_t i = 0; i < n;) {
    if (!is_space(s[i])) {
      s[w++] = s[i++];
      continue;
    }
    while (i < n && is_space(s[i]))
      i++;
    bool prev_word = w > 0 && is_word(s[w - 1]);
    bool next_word = i < n && is_word(s[i]);
    if (prev_word && next_word)
      s[w++] = ' ';
  }
  s[w] = 0;
  return w;
}

static const char *op_type_name(gql_operation_type t) {
  return t == GQL_OP_MUTATION       ? "mutation"
         : t == GQL_OP_SUBSCRIPTION ? "subscription"
                                    : "query";
}

const gql_ast_operation *gql_trace_select_operation(const gql_document *doc,
                                                    const char *name) {
  size_t nlen = name ? strlen(name) : 0;
  for (uint32_t i = 0; doc && i < doc->definitions.count; i++) {
    const gql_ast_node *d = doc->definitions.items[i];
    if (d->kind != GQL_AST_OPERATION_DEFINITION)
      continue;
    const gql_ast_operation *op = (const gql_ast_operation *)d;
    if (!nlen ||
        (op->name.len == nlen && memcmp(op->name.ptr, name, nlen) == 0))
      return op;
  }
  return NULL;
}

gql_str gql_trace_fallback_resource(gql_arena *arena,
                                    const gql_ast_operation *op) {
  if (!op)
    return GQL_STR("");
  const char *t = op_type_name(op->operation);
  char *s = op->name.len ? gql_arena_sprintf(arena, "%s %.*s", t,
                                             (int)op->name.len, op->name.ptr)
                         : gql_arena_strndup(arena, t, strlen(t));
  return s ? gql_cstr(s) : GQL_STR("");
}

int gql_trace_signature(gql_arena *arena, const gql_document *doc,
                        const char *operation_name, gql_str *out) {
  *out = GQL_STR("");
  if (!arena || !doc)
    return GQL_EINVAL;
  const gql_ast_operation *op = gql_trace_select_operation(doc, operation_name);
  uint32_t n = doc->definitions.count;
  bool *keep = gql_arena_alloc(arena, n + 1);
  if (!keep)
    return GQL_ENOMEM;
  memset(keep, 0, n + 1);
  if (op && op->name.len) {
    for (uint32_t i = 0; i < n; i++)
      if (doc->definitions.items[i] == &op->h)
        keep[i] = true;
    mark_used(doc, op->selection_set, keep);
  } else {
    memset(keep, 1, n);
  }
  sig g = {arena, false};
  gql_document copy = *doc;
  copy.definitions.items = gql_arena_alloc(arena, sizeof(void *) * (n + 1));
  if (!copy.definitions.items)
    return GQL_ENOMEM;
  copy.definitions.count = 0;
  for (uint32_t i = 0; i < n; i++)
    if (keep[i])
      copy.definitions.items[copy.definitions.count++] =
          definition_copy(&g, doc->definitions.items[i]);
  if (g.failed)
    return GQL_ENOMEM;
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_print_node(&b, &copy.h);
  if (b.failed) {
    gql_buf_free(&b);
    return GQL_ENOMEM;
  }
  char *s = gql_arena_strndup(arena, b.data ? b.data : "", b.len);
  gql_buf_free(&b);
  if (!s)
    return GQL_ENOMEM;
  *out = (gql_str){s, squeeze(s, strlen(s))};
  return 0;
}
