/*
 * Field sets (the `fields` of @key, @requires and @provides, as
 * join__FieldSet strings in the supergraph): parsed by gql's own GraphQL
 * parser as the selection set `{` + text + `}`, so the whole grammar is
 * accepted (arguments, nested selections, inline fragments with type
 * conditions), then checked against the supergraph's types and normalised
 * as the planner reads selections: fields merged by name and type
 * condition, a fragment's fields carrying its type as `cond`.
 */
#include "supergraph_read.h"

#include <stdio.h>

typedef struct fs_ctx {
  const gql_supergraph *sg;
  gql_arena *arena;
  const char **err;
  size_t *err_offset;
  size_t shift; /* bytes before the field set in the parsed text */
} fs_ctx;

static int fs_fail(fs_ctx *c, uint32_t offset, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fs_fail(fs_ctx *c, uint32_t offset, const char *fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  *c->err = gql_arena_strndup(c->arena, buf, strlen(buf));
  if (!*c->err)
    *c->err = "invalid field set";
  *c->err_offset = offset >= c->shift ? offset - c->shift : 0;
  return GQL_ESCHEMA;
}

static bool is_composite(const gql_gw_type *t) {
  return t && (t->kind == GQL_AST_OBJECT_TYPE_DEFINITION ||
               t->kind == GQL_AST_INTERFACE_TYPE_DEFINITION ||
               t->kind == GQL_AST_UNION_TYPE_DEFINITION);
}

static gql_gw_sel *fs_node(fs_ctx *c, gql_gw_sel *dst, gql_str name,
                           const gql_gw_type *cond, const gql_gw_type *cond2) {
  for (gql_gw_sel *s = dst->first; s; s = s->next)
    if (gql_str_eq(s->name, name) && s->cond == cond && s->cond2 == cond2)
      return s;
  gql_gw_sel *s = gql_arena_alloc(c->arena, sizeof *s);
  if (!s)
    return NULL;
  memset(s, 0, sizeof *s);
  s->key = s->name = name;
  s->cond = cond;
  s->cond2 = cond2;
  dst->has_cond |= cond != NULL;
  if (dst->last)
    dst->last->next = s;
  else
    dst->first = s;
  dst->last = s;
  dst->has_children = true;
  return s;
}

static int fs_collect(fs_ctx *c, const gql_gw_type *t,
                      const gql_ast_selection_set *set, gql_gw_sel *dst,
                      const gql_gw_type *cond, const gql_gw_type *cond2,
                      unsigned depth) {
  if (depth > 64)
    return fs_fail(c, set->h.start, "the field set nests too deeply");
  if (set->selections.count == 0)
    return fs_fail(c, set->h.start, "an empty selection in a field set");
  for (uint32_t i = 0; i < set->selections.count; i++) {
    const gql_ast_selection *s = set->selections.items[i];
    if (s->directives.count)
      return fs_fail(c, s->directives.items[0]->h.start,
                     "directives are not allowed in a field set");
    if (s->h.kind == GQL_AST_FRAGMENT_SPREAD)
      return fs_fail(c, s->h.start,
                     "fragment spreads are not allowed in a field set");
    if (s->h.kind == GQL_AST_INLINE_FRAGMENT) {
      const gql_gw_type *owner = cond ? cond : t;
      const gql_gw_type *ct = owner;
      if (s->type_condition) {
        gql_str n = gql_ast_name_str(s->type_condition->name);
        ct = gql_supergraph_type(c->sg, n);
        if (!ct || !is_composite(ct))
          return fs_fail(c, s->type_condition->h.start,
                         "unknown type \"%.*s\" in a field set", (int)n.len,
                         n.ptr);
        if (!gql_supergraph_overlap(ct, owner))
          return fs_fail(c, s->h.start,
                         "a fragment on \"%.*s\" can never apply to \"%.*s\"",
                         (int)ct->name.len, ct->name.ptr, (int)owner->name.len,
                         owner->name.ptr);
      }
      /* a fragment on another type: its fields apply to objects of that
       * type (and of the enclosing condition, kept as cond2) */
      const gql_gw_type *nc = cond, *nc2 = cond2;
      if (ct != owner) {
        nc2 = cond;
        nc = ct;
      }
      int rc = fs_collect(c, t, s->selection_set, dst, nc, nc2, depth + 1);
      if (rc)
        return rc;
      continue;
    }
    gql_str name = gql_ast_name_str(s->name);
    if (s->alias.ptr)
      return fs_fail(c, s->h.start, "aliases are not allowed in a field set");
    const gql_gw_type *owner = cond ? cond : t;
    const gql_gw_field *f = NULL;
    if (!gql_str_eq_cstr(name, "__typename")) {
      f = gql_supergraph_field_of(c->sg, owner, name);
      if (!f)
        return fs_fail(c, s->h.start,
                       "Cannot query field \"%.*s\" on type \"%.*s\" in a "
                       "field set",
                       (int)name.len, name.ptr, (int)owner->name.len,
                       owner->name.ptr);
    }
    const gql_gw_type *ft = f ? f->named : NULL;
    if (s->selection_set && !is_composite(ft))
      return fs_fail(c, s->selection_set->h.start,
                     "field \"%.*s\" of a field set has no sub-selection to "
                     "make",
                     (int)name.len, name.ptr);
    if (!s->selection_set && is_composite(ft))
      return fs_fail(c, s->h.start,
                     "field \"%.*s\" of a field set needs a selection of "
                     "subfields",
                     (int)name.len, name.ptr);
    gql_gw_sel *node = fs_node(c, dst, name, cond, cond2);
    if (!node)
      return GQL_ENOMEM;
    node->field = s;
    node->def = f;
    if (s->selection_set) {
      node->has_children = true;
      int rc = fs_collect(c, ft, s->selection_set, node, NULL, NULL, depth + 1);
      if (rc)
        return rc;
    }
  }
  return 0;
}

int gql_gw_parse_field_set(const gql_supergraph *sg, gql_arena *arena,
                           const gql_gw_type *on, gql_str text,
                           gql_gw_sel **out, const char **err,
                           size_t *err_offset) {
  const char *dummy;
  size_t dummy_off;
  fs_ctx c = {sg, arena, err ? err : &dummy,
              err_offset ? err_offset : &dummy_off, 1};
  *c.err = NULL;
  *c.err_offset = 0;
  /* `{` + text + `}`: the text's offsets are those of the parse minus 1 */
  char *src = gql_arena_alloc(arena, text.len + 3);
  if (!src)
    return GQL_ENOMEM;
  src[0] = '{';
  if (text.len)
    memcpy(src + 1, text.ptr, text.len);
  src[text.len + 1] = '}';
  src[text.len + 2] = 0;
  gql_document *doc;
  gql_syntax_error se;
  gql_parse_options po = {.max_depth = 64};
  int rc = gql_parse_syntax(arena, src, text.len + 2, &po, &doc, &se);
  if (rc == GQL_ENOMEM)
    return rc;
  if (rc) {
    size_t off = se.offset > text.len + 1 ? text.len + 1 : se.offset;
    *c.err = se.message ? se.message : "Syntax Error";
    *c.err_offset = off ? off - 1 : 0;
    return GQL_ESYNTAX;
  }
  if (doc->definitions.count != 1 ||
      doc->definitions.items[0]->kind != GQL_AST_OPERATION_DEFINITION ||
      !((const gql_ast_operation *)doc->definitions.items[0])->shorthand)
    return fs_fail(&c, 1, "not a field set");
  const gql_ast_operation *op =
      (const gql_ast_operation *)doc->definitions.items[0];
  gql_gw_sel *root = gql_arena_alloc(arena, sizeof *root);
  if (!root)
    return GQL_ENOMEM;
  memset(root, 0, sizeof *root);
  rc = fs_collect(&c, on, op->selection_set, root, NULL, NULL, 0);
  if (rc)
    return rc;
  *out = root;
  return 0;
}
