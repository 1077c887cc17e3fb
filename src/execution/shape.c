/* gql_prepared_shape: the measures of an operation that Apollo Router's
 * operation limits bound (depth, height, aliases, root fields) and whether
 * it introspects the schema, computed once per prepared operation (a
 * server keeps them with its cached operation, so that checking the limits
 * costs a few compares per request). Fragments are measured once each
 * (memoized), so a document that spreads a fragment many times costs no
 * more than its size. */
#include "exec.h"

#include <stdlib.h>

typedef struct frag_memo {
  const gql_ast_fragment *def;
  uint8_t state; /* 0 not yet, 1 measuring (a cycle: counts 0), 2 done */
  bool counted;  /* its height and aliases were added once already */
  uint32_t depth, height, aliases, roots;
} frag_memo;

typedef struct shaper {
  frag_memo *frags;
  uint32_t nfrags;
  bool introspection;
} shaper;

typedef struct measure {
  uint32_t depth, height, aliases, roots;
} measure;

static frag_memo *find_fragment(shaper *s, gql_str name) {
  for (uint32_t i = 0; i < s->nfrags; i++)
    if (gql_str_eq(gql_ast_name_str(s->frags[i].def->name), name))
      return &s->frags[i];
  return NULL;
}

static measure measure_set(shaper *s, const gql_ast_selection_set *set);

static measure measure_fragment(shaper *s, frag_memo *f) {
  if (f->state == 0) {
    f->state = 1;
    measure m = measure_set(s, f->def->selection_set);
    f->depth = m.depth;
    f->height = m.height;
    f->aliases = m.aliases;
    f->roots = m.roots;
    f->state = 2;
  }
  if (f->state == 1)
    return (measure){0, 0, 0, 0};
  return (measure){f->depth, f->height, f->aliases, f->roots};
}

static uint32_t add_sat(uint32_t a, uint32_t b) {
  return a > UINT32_MAX - b ? UINT32_MAX : a + b;
}

/* depth: fields nested (a leaf at the root is 1); height: fields, a name
 * selected twice in one selection set (aliases too) once, a fragment's
 * fields once however often it is spread; aliases: fields with an alias
 * (a fragment's once); roots: fields of this selection set itself. */
static measure measure_set(shaper *s, const gql_ast_selection_set *set) {
  measure m = {0, 0, 0, 0};
  if (!set)
    return m;
  for (uint32_t i = 0; i < set->selections.count; i++) {
    const gql_ast_selection *sel = set->selections.items[i];
    measure sub;
    if (sel->h.kind == GQL_AST_FIELD) {
      gql_str name = gql_ast_name_str(sel->name);
      if (gql_str_eq_cstr(name, "__schema") || gql_str_eq_cstr(name, "__type"))
        s->introspection = true;
      bool again = false;
      for (uint32_t j = 0; j < i && !again; j++) {
        const gql_ast_selection *o = set->selections.items[j];
        again = o->h.kind == GQL_AST_FIELD &&
                gql_str_eq(gql_ast_name_str(o->name), name);
      }
      sub = measure_set(s, sel->selection_set);
      sub.depth = add_sat(sub.depth, 1);
      sub.height = add_sat(sub.height, again ? 0 : 1);
      sub.aliases = add_sat(sub.aliases, sel->alias.len ? 1 : 0);
      sub.roots = 1;
    } else if (sel->h.kind == GQL_AST_FRAGMENT_SPREAD) {
      frag_memo *f = find_fragment(s, gql_ast_name_str(sel->name));
      sub = f ? measure_fragment(s, f) : (measure){0, 0, 0, 0};
      if (f && f->counted) /* its fields are counted once in all */
        sub.height = sub.aliases = 0;
      if (f)
        f->counted = true;
    } else {
      sub = measure_set(s, sel->selection_set);
    }
    if (sub.depth > m.depth)
      m.depth = sub.depth;
    m.height = add_sat(m.height, sub.height);
    m.aliases = add_sat(m.aliases, sub.aliases);
    m.roots = add_sat(m.roots, sub.roots);
  }
  return m;
}

int gql_prepared_shape(const gql_prepared *p, gql_operation_shape *out) {
  memset(out, 0, sizeof *out);
  if (!p || !p->op)
    return GQL_EINVAL;
  const gql_document *doc = p->doc;
  uint32_t n = 0;
  for (uint32_t i = 0; i < doc->definitions.count; i++)
    n += doc->definitions.items[i]->kind == GQL_AST_FRAGMENT_DEFINITION;
  shaper s = {.frags = n ? calloc(n, sizeof(frag_memo)) : NULL};
  if (n && !s.frags)
    return GQL_ENOMEM;
  for (uint32_t i = 0; i < doc->definitions.count; i++)
    if (doc->definitions.items[i]->kind == GQL_AST_FRAGMENT_DEFINITION)
      s.frags[s.nfrags++].def =
          (const gql_ast_fragment *)doc->definitions.items[i];
  measure m = measure_set(&s, p->op->selection_set);
  free(s.frags);
  *out = (gql_operation_shape){.depth = m.depth,
                               .height = m.height,
                               .aliases = m.aliases,
                               .root_fields = m.roots,
                               .introspection = s.introspection};
  return 0;
}
