/* gql_prepare: parse, validate, select the operation and compile it into
 * plan sets (CollectFields done ahead of time for every selection set and
 * possible concrete type). */
#include "exec.h"
#include "hooks.h"
#include "validation/validation.h"

#include <stdio.h>

/* ------------------------------------------------------------ planning */

/* How the executor writes a member of `kind` for fast-path kind `dleaf`
 * (plan_field.member): MEMBER_NONE when the general path must. */
static uint8_t member_fast(uint8_t kind, uint8_t dleaf) {
  bool number = dleaf == LEAF_INT || dleaf == LEAF_FLOAT;
  bool string = dleaf == LEAF_STRING || dleaf == LEAF_ID;
  switch (kind) {
  case GQL_MEMBER_INT32:
    return number ? MEMBER_INT32 : MEMBER_NONE;
  case GQL_MEMBER_INT64:
    return dleaf == LEAF_INT     ? MEMBER_INT64_INT
           : dleaf == LEAF_FLOAT ? MEMBER_INT64
                                 : MEMBER_NONE;
  case GQL_MEMBER_DOUBLE:
    return dleaf == LEAF_FLOAT ? MEMBER_DOUBLE : MEMBER_NONE;
  case GQL_MEMBER_BOOL:
    return dleaf == LEAF_BOOLEAN ? MEMBER_BOOL : MEMBER_NONE;
  case GQL_MEMBER_STR:
    return string ? MEMBER_STR : MEMBER_NONE;
  case GQL_MEMBER_CSTR:
    return string ? MEMBER_CSTR : MEMBER_NONE;
  case GQL_MEMBER_ENUM_U8:
    return dleaf == LEAF_ENUM ? MEMBER_ENUM : MEMBER_NONE;
  default:
    return MEMBER_NONE;
  }
}

enum { INLINE_ENTRIES = 16 };

typedef struct set_builder {
  plan_field *fields;
  uint32_t nfields, cap;
  /* the first occurrence of fields[i] for i < nfirst_occs (one arena call
   * for a set, its fields and their first occurrences) */
  plan_occ *first_occs;
  uint32_t nfirst_occs;
  plan_entry *entries; /* on build_set_new's stack until more are needed */
  uint32_t nentries, ecap;
  bool any_cond;
  bool check_conds; /* see plan_set.check_conds */
  bool any_defer;   /* see plan_set.any_defer */
  const plan_defer **defers;
  uint32_t ndefers, dcap;
  gql_strmap keys; /* key → field index, made and used above 16 fields */
  const gql_ast_fragment **visited;
  uint32_t nvisited, vcap;
} set_builder;

typedef struct pb {
  gql_prepared *p;
  const gql_schema *s;
  gql_arena *a;          /* the plan's memory */
  gql_arena *tmp;        /* working memory, dropped after planning */
  gql_allocator tmp_alc; /* over tmp, for maps (see tmp_allocator) */
  uint32_t nfrags;
  uint32_t nstack;
  uint32_t planned, max;
  int err;
  const char *msg;
  coerce_ctx cc;
  /* Plan sets already built, by their parents' occurrences and type (see
   * build_set). */
  struct set_memo *sets;
  uint32_t nsets, sets_cap;
  uint32_t deepest; /* deepest build_set depth reached */
  /* Per AST node (a type condition or a fragment spread), the type or the
   * fragment's definition index found by name: a node is met once per
   * possible type of every set it is collected into. Made on first use. */
  struct node_memo *memo;
  struct key_memo *keys; /* by name pointer: the "key": made for it */
  uint32_t nkeys;
  /* Set only when the document has fragments (gql_prepare does not clear
   * them): fragment definitions by name, a list up to FEW_FRAGMENTS, else
   * a map, and the fragments being expanded. */
  gql_strmap frags;
  const gql_ast_fragment **frag_list;
  uint32_t *frag_index; /* of frag_list[i] in the document's definitions */
  const gql_ast_fragment **stack;
} pb;

struct key_memo {
  const char *name;
  size_t len;
  gql_str json;
};

/* A plan set depends only on the occurrences it is collected from and the
 * concrete type (the variables are the operation's), so sets with equal
 * ones are built once: the friends of a Human and of a Droid share their
 * sub-plans. `planned` and `height` are the fields planned and the depth
 * reached below it, so that a reused set counts against the limits as if
 * it had been built again. */
struct set_memo {
  uint64_t hash;
  /* the parents (when none of their sets has a fragment spread), else
   * their signature (see set_signature) */
  const plan_occ *parents;
  const uintptr_t *sig;
  uint32_t nkey, type;
  uint32_t planned, height;
  plan_set *set;
};

struct node_memo {
  const void *node;
  uint32_t value;
};
enum { MEMO_SIZE = 64, FEW_FRAGMENTS = 16 };

enum { MAX_PLAN_DEPTH = 512, MAX_FRAGMENT_DEPTH = 256 };
/* The prepared operation's first block: what a document of this length
 * usually takes (an AST and a plan), so that one allocator call is enough.
 * Below SMALL_DOCUMENT bytes a document is mostly fields, the densest text
 * (a field's AST node and plan field take about 100 bytes per byte of
 * `{ a b }`): 96 bytes per byte, at least SMALL_BLOCK_MIN; `{ hello }` then
 * takes under 1 KiB, which libc's malloc serves from its per-thread cache.
 * Longer documents take PREPARED_BLOCK_MIN + 48 bytes per byte, up to
 * PREPARED_BLOCK_MAX. */
enum {
  SMALL_DOCUMENT = 48,
  SMALL_BLOCK_MIN = 768,
  PREPARED_BLOCK_MIN = 4096,
  PREPARED_BLOCK_MAX = 256 * 1024,
};

static size_t prepared_block(size_t len) {
  if (len < SMALL_DOCUMENT)
    return len * 96 > SMALL_BLOCK_MIN ? len * 96 : SMALL_BLOCK_MIN;
  return len < PREPARED_BLOCK_MAX / 64 ? PREPARED_BLOCK_MIN + len * 48
                                       : PREPARED_BLOCK_MAX;
}

/* Clears `size` bytes (a multiple of 8 known at compile time) with 16-byte
 * stores: GCC clears a struct of this size (a plan field, the planner's
 * state) with `rep stos`, whose start-up costs more than the stores (see
 * zero() in parser.c). */
typedef char clear16 __attribute__((vector_size(16), aligned(8), may_alias));
static inline __attribute__((always_inline)) void clear(void *p, size_t size) {
  char *c = p;
  size_t i = 0;
  assert(size % 8 == 0);
#pragma GCC unroll 16 /* else the loop may become a memset again */
  for (; i + 16 <= size; i += 16)
    *(clear16 *)(c + i) = (clear16){0};
  if (i < size)
    memset(c + i, 0, 8);
}

/* The allocator over the working memory, made on first use (few
 * operations need a map). */
static const gql_allocator *tmp_allocator(pb *b) {
  if (!b->tmp_alc.malloc)
    b->tmp_alc = gql_arena_allocator(b->tmp);
  return &b->tmp_alc;
}

/* Room for `need` items in an array of the plan (`arena`: b->a) or of the
 * planning (b->tmp); false, with b->err set, when out of memory. */
#define RESERVE_IN(b, arena, items, cap, need, first)                          \
  (GQL_ARRAY_RESERVE_FIRST(arena, items, cap, need, first) ||                  \
   ((b)->err = GQL_ENOMEM, false))
#define RESERVE(b, items, cap, need)                                           \
  RESERVE_IN(b, (b)->tmp, items, cap, need, 8)

static int64_t var_index(const gql_prepared *p, gql_ast_name name) {
  for (uint32_t i = 0; i < p->nvars; i++)
    if (gql_str_eq(p->vars[i].name, gql_ast_name_str(name)))
      return i;
  return -1;
}

/* Adds the conditions of @skip/@include on `dirs` to conds; false when the
 * selection is excluded whatever the variables. */
/* The conditions of a selection with directives `dirs`: *out the
 * selection's, `conds` (its ancestors') and its own @skip / @include on a
 * variable; false when a literal excludes it. *check is set when one needs
 * checking at execution (see plan_set.check_conds). */
static bool add_conditions(pb *b, const gql_ast_directives *dirs,
                           const plan_cond *conds, uint32_t nconds,
                           const plan_cond **out, uint32_t *nout, bool *check) {
  *out = conds;
  *nout = nconds;
  for (uint32_t i = 0; i < dirs->count; i++) {
    const gql_ast_directive *d = dirs->items[i];
    bool skip = gql_str_eq_cstr(gql_ast_name_str(d->name), "skip");
    bool include = gql_str_eq_cstr(gql_ast_name_str(d->name), "include");
    if (!skip && !include)
      continue;
    const gql_ast_value *v = NULL;
    for (uint32_t j = 0; j < d->args.count; j++)
      if (gql_str_eq_cstr(gql_ast_name_str(d->args.items[j]->name), "if"))
        v = d->args.items[j]->value;
    if (!v ||
        (v->h.kind != GQL_AST_BOOLEAN_VALUE && v->h.kind != GQL_AST_VARIABLE)) {
      /* unvalidated: graphql-js's getArgumentValues would throw */
      b->p->bad_condition = true;
      *check = true;
      continue;
    }
    if (v->h.kind == GQL_AST_BOOLEAN_VALUE) {
      if (v->u.boolean == skip)
        return false;
      continue;
    }
    int64_t vi = var_index(b->p, v->u.name);
    *check = true;
    if (vi < 0) { /* an undefined variable has no value */
      b->p->bad_condition = true;
      return false;
    }
    b->p->vars[vi].in_condition = true;
    plan_cond *nc = gql_arena_alloc(b->a, sizeof *nc * (*nout + 1));
    if (!nc) {
      b->err = GQL_ENOMEM;
      return false;
    }
    if (*nout)
      memcpy(nc, *out, sizeof *nc * *nout);
    nc[*nout] = (plan_cond){(uint32_t)vi, include};
    *out = nc;
    (*nout)++;
  }
  return true;
}

/* The memo entry for `node` (check its node), or NULL without memory. */
static struct node_memo *memo_slot(pb *b, const void *node) {
  if (!b->memo) {
    b->memo = gql_arena_alloc(b->tmp, MEMO_SIZE * sizeof *b->memo);
    if (!b->memo)
      return NULL;
    memset(b->memo, 0, MEMO_SIZE * sizeof *b->memo);
  }
  uintptr_t h = (uintptr_t)node;
  h ^= h >> 6;
  return &b->memo[h % MEMO_SIZE];
}

static bool type_applies(pb *b, const gql_ast_type *cond, uint32_t type) {
  if (!cond)
    return true;
  struct node_memo *m = memo_slot(b, cond);
  uint32_t ct;
  if (m && m->node == cond) {
    ct = m->value;
  } else {
    ct = gql_schema_type_index(b->s, gql_ast_name_str(cond->name));
    if (m)
      *m = (struct node_memo){cond, ct};
  }
  if (ct == GQL_NO_TYPE)
    return false;
  if (ct == type)
    return true;
  if (gql_schema_is_abstract(b->s, ct))
    return gql_schema_is_sub_type(b->s, ct, type);
  return false;
}

static int64_t find_key(set_builder *sb, gql_str key) {
  if (sb->nfields > 16) {
    uint32_t v;
    return gql_strmap_get(&sb->keys, key, &v) ? (int64_t)v : -1;
  }
  for (uint32_t i = 0; i < sb->nfields; i++) {
    gql_str k = sb->fields[i].key;
    if (k.len == key.len &&
        (k.ptr == key.ptr || k.len == 0 ||
         (k.ptr[0] == key.ptr[0] && memcmp(k.ptr, key.ptr, k.len) == 0)))
      return i;
  }
  return -1;
}

static void add_field(pb *b, set_builder *sb, const gql_ast_selection *sel,
                      const plan_cond *conds, uint32_t nconds, uint32_t defer,
                      uint32_t type) {
  gql_str name = gql_ast_name_str(sel->name);
  /* a name without "__" on an object type is one of its own fields */
  const gql_type *pt = &b->s->types[type];
  bool own = pt->kind == GQL_TYPE_OBJECT &&
             !(name.len > 2 && name.ptr[0] == '_' && name.ptr[1] == '_');
  const gql_field *def =
      own ? gql_type_field(pt, name) : gql_schema_field_def(b->s, type, name);
  if (!def)
    return; /* graphql-js leaves undefined fields out of the response */
  gql_str key = sel->alias.ptr ? gql_ast_name_str(sel->alias) : name;
  int64_t fi = find_key(sb, key);
  if (fi < 0) {
    if (++b->planned > b->max) {
      b->err = GQL_ELIMIT;
      b->msg = "The operation is too large to plan.";
      return;
    }
    /* fragments may give more than the room */
    if (!RESERVE_IN(b, b->a, sb->fields, sb->cap, sb->nfields + 1, 4))
      return;
    fi = sb->nfields++;
    plan_field *pf = &sb->fields[fi];
    clear(pf, sizeof *pf);
    pf->key = key;
    pf->field = def;
    pf->parent_type = type;
    pf->arg_slot = UINT32_MAX;
    pf->conditional = true;
    if (def == &b->s->meta_typename)
      pf->meta = META_TYPENAME;
    if (sb->nfields == 17) {
      gql_strmap_init(&sb->keys, tmp_allocator(b));
      for (uint32_t i = 0; i < sb->nfields; i++)
        if (gql_strmap_put(&sb->keys, sb->fields[i].key, i) < 0)
          b->err = GQL_ENOMEM;
    } else if (sb->nfields > 17 &&
               gql_strmap_put(&sb->keys, key, (uint32_t)fi) < 0) {
      b->err = GQL_ENOMEM;
    }
  }
  plan_field *pf = &sb->fields[fi];
  /* most fields occur once: the plan keeps their occurrences, the first
   * one from the set's array when there is room */
  if (pf->nocc == 0 && fi < sb->nfirst_occs) {
    pf->occs = &sb->first_occs[fi];
    pf->occ_cap = 1;
  } else {
    if (!RESERVE_IN(b, b->a, pf->occs, pf->occ_cap, pf->nocc + 1, 1))
      return;
  }
  pf->occs[pf->nocc] = (plan_occ){sel, conds, nconds, defer};
  sb->any_defer |= defer != 0;
  if (nconds == 0)
    pf->conditional = false;
  else
    sb->any_cond = true;
  if (!RESERVE(b, sb->entries, sb->ecap, sb->nentries + 1))
    return;
  sb->entries[sb->nentries++] = (plan_entry){(uint32_t)fi, pf->nocc};
  pf->nocc++;
}

/* The index in the document's definitions of fragment `name`, or
 * UINT32_MAX. */
static uint32_t fragment_index(pb *b, gql_str name) {
  if (b->nfrags > FEW_FRAGMENTS) {
    uint32_t fi;
    return gql_strmap_get(&b->frags, name, &fi) ? fi : UINT32_MAX;
  }
  /* the first definition of a name wins, as in the map */
  for (uint32_t i = 0; i < b->nfrags; i++)
    if (gql_str_eq(gql_ast_name_str(b->frag_list[i]->name), name))
      return b->frag_index[i];
  return UINT32_MAX;
}

/* fragment_index of a spread, remembered per spread node. */
static uint32_t spread_index(pb *b, const gql_ast_selection *sel) {
  struct node_memo *m = memo_slot(b, sel);
  if (m && m->node == sel)
    return m->value;
  uint32_t fi = fragment_index(b, gql_ast_name_str(sel->name));
  if (m)
    *m = (struct node_memo){sel, fi};
  return fi;
}

/* The usage of a @defer on fragment `sel` inside `defer` (see plan_defer):
 * `defer` itself when it has none or its `if` is a literal false. Only in
 * documents with a @defer or @stream (prepared.incremental). */
static __attribute__((noinline)) uint32_t
defer_usage(pb *b, set_builder *sb, const gql_ast_selection *sel,
            uint32_t defer) {
  gql_prepared *p = b->p;
  const gql_ast_directive *d =
      gql_ast_find_directive(&sel->directives, "defer");
  if (!d)
    return defer;
  const gql_ast_argument *a = gql_ast_find_argument(&d->args, "if");
  const gql_ast_argument *l = gql_ast_find_argument(&d->args, "label");
  uint32_t var = UINT32_MAX;
  if (a && a->value->h.kind == GQL_AST_BOOLEAN_VALUE && !a->value->u.boolean)
    return defer;
  if (a && a->value->h.kind == GQL_AST_VARIABLE) {
    int64_t vi = var_index(b->p, a->value->u.name);
    if (vi >= 0)
      var = (uint32_t)vi;
  }
  plan_defer *u = gql_arena_alloc(b->a, sizeof *u);
  if (!u || !RESERVE_IN(b, b->a, sb->defers, sb->dcap, sb->ndefers + 1, 2) ||
      !RESERVE_IN(b, b->a, p->defers, p->defers_cap, p->ndefers + 1, 4)) {
    b->err = GQL_ENOMEM;
    return defer;
  }
  *u = (plan_defer){.parent = defer ? p->defers[defer - 1] : NULL,
                    .node = sel,
                    .var = var,
                    .index = p->ndefers};
  if (l && l->value->h.kind == GQL_AST_STRING_VALUE)
    u->label = l->value->u.string.value;
  sb->defers[sb->ndefers++] = u;
  sb->any_defer = true;
  p->defers[p->ndefers++] = u;
  return p->ndefers;
}

static void collect(pb *b, set_builder *sb, const gql_ast_selection_set *ss,
                    const plan_cond *conds, uint32_t nconds, uint32_t defer,
                    uint32_t type) {
  for (uint32_t i = 0; ss && i < ss->selections.count && !b->err; i++) {
    const gql_ast_selection *sel = ss->selections.items[i];
    const plan_cond *c;
    uint32_t nc;
    if (!add_conditions(b, &sel->directives, conds, nconds, &c, &nc,
                        &sb->check_conds))
      continue;
    switch (sel->h.kind) {
    case GQL_AST_FIELD:
      add_field(b, sb, sel, c, nc, defer, type);
      break;
    case GQL_AST_INLINE_FRAGMENT:
      if (type_applies(b, sel->type_condition, type))
        collect(b, sb, sel->selection_set, c, nc,
                b->p->incremental ? defer_usage(b, sb, sel, defer) : 0, type);
      break;
    case GQL_AST_FRAGMENT_SPREAD: {
      uint32_t fi = spread_index(b, sel);
      if (fi == UINT32_MAX)
        break;
      const gql_ast_fragment *f =
          (const gql_ast_fragment *)b->p->doc->definitions.items[fi];
      bool seen = false;
      for (uint32_t j = 0; j < sb->nvisited; j++)
        seen |= sb->visited[j] == f;
      for (uint32_t j = 0; j < b->nstack; j++)
        seen |= b->stack[j] == f;
      if (seen || b->nstack >= MAX_FRAGMENT_DEPTH)
        break;
      if (nc == 0) {
        if (!RESERVE(b, sb->visited, sb->vcap, sb->nvisited + 1))
          break;
        sb->visited[sb->nvisited++] = f;
      }
      if (!type_applies(b, f->type_condition, type))
        break;
      b->stack[b->nstack++] = f;
      collect(b, sb, f->selection_set, c, nc,
              b->p->incremental ? defer_usage(b, sb, sel, defer) : 0, type);
      b->nstack--;
      break;
    }
    default:
      break;
    }
  }
}

static bool args_use_variables(const gql_ast_value *v) {
  switch (v->h.kind) {
  case GQL_AST_VARIABLE:
    return true;
  case GQL_AST_LIST_VALUE:
    for (uint32_t i = 0; i < v->u.list.count; i++)
      if (args_use_variables(v->u.list.items[i]))
        return true;
    return false;
  case GQL_AST_OBJECT_VALUE:
    for (uint32_t i = 0; i < v->u.fields.count; i++)
      if (args_use_variables(v->u.fields.items[i]->value))
        return true;
    return false;
  default:
    return false;
  }
}

static plan_set *build_set(pb *b, const plan_occ *parents, uint32_t nparents,
                           uint32_t type, uint32_t depth);

/* The bytes of a GraphQL name: _ 0-9 A-Z a-z. */
#define NC_(c) [c] = 1
static const unsigned char name_char[256] = {
    NC_('_'), NC_('0'), NC_('1'), NC_('2'), NC_('3'), NC_('4'), NC_('5'),
    NC_('6'), NC_('7'), NC_('8'), NC_('9'), NC_('A'), NC_('B'), NC_('C'),
    NC_('D'), NC_('E'), NC_('F'), NC_('G'), NC_('H'), NC_('I'), NC_('J'),
    NC_('K'), NC_('L'), NC_('M'), NC_('N'), NC_('O'), NC_('P'), NC_('Q'),
    NC_('R'), NC_('S'), NC_('T'), NC_('U'), NC_('V'), NC_('W'), NC_('X'),
    NC_('Y'), NC_('Z'), NC_('a'), NC_('b'), NC_('c'), NC_('d'), NC_('e'),
    NC_('f'), NC_('g'), NC_('h'), NC_('i'), NC_('j'), NC_('k'), NC_('l'),
    NC_('m'), NC_('n'), NC_('o'), NC_('p'), NC_('q'), NC_('r'), NC_('s'),
    NC_('t'), NC_('u'), NC_('v'), NC_('w'), NC_('x'), NC_('y'), NC_('z')};
#undef NC_

/* "key": in the arena. A key is a GraphQL name, which JSON writes as is;
 * anything else goes through the JSON writer. */
static bool make_key_json_new(pb *b, plan_field *pf);

static bool make_key_json(pb *b, plan_field *pf, uint32_t depth) {
  gql_str k = pf->key;
  /* the same name in the document (a field collected into the sets of
   * several types) has the same "key": */
  if (depth == 0) /* the root set's keys are met once */
    return make_key_json_new(b, pf);
  if (!b->keys && k.ptr) {
    /* a short document has few names: a smaller table to clear */
    b->nkeys = b->p->text.len < 1024 ? MEMO_SIZE / 4 : MEMO_SIZE;
    b->keys = gql_arena_alloc(b->tmp, b->nkeys * sizeof *b->keys);
    if (b->keys)
      memset(b->keys, 0, b->nkeys * sizeof *b->keys);
  }
  struct key_memo *m = NULL;
  if (b->keys && k.ptr) {
    uintptr_t h = (uintptr_t)k.ptr;
    m = &b->keys[(h ^ (h >> 6)) & (b->nkeys - 1)]; /* a power of 2 */
    if (m->name == k.ptr && m->len == k.len) {
      pf->key_json = m->json;
      return true;
    }
  }
  if (!make_key_json_new(b, pf))
    return false;
  if (m)
    *m = (struct key_memo){k.ptr, k.len, pf->key_json};
  return true;
}

static bool make_key_json_new(pb *b, plan_field *pf) {
  pf->key_json = gql_json_key(b->a, pf->key);
  return pf->key_json.ptr != NULL;
}

/* key_json shorter than this goes into key_pad, after ',' and the
 * separator's byte (see plan_field.key_pad) */
enum { KEY_PAD_JSON = 31 };

/* A short key that is a name: "key": written straight into key_pad, and
 * key_json is that copy; no arena call. False for any other key (key_short
 * stays 0). */
static bool key_in_pad(plan_field *pf) {
  gql_str k = pf->key;
  if (k.len == 0 || k.len + 3 >= KEY_PAD_JSON)
    return false;
  memset(pf->key_pad, 0, sizeof pf->key_pad);
  pf->key_pad[0] = ',';
  char *kj = pf->key_pad + 2;
  kj[0] = '"';
  for (size_t i = 0; i < k.len; i++) { /* copied as checked */
    char c = k.ptr[i];
    if (!name_char[(unsigned char)c])
      return false; /* the pad is written again by finish_field */
    kj[i + 1] = c;
  }
  kj[k.len + 1] = '"';
  kj[k.len + 2] = ':';
  pf->key_json = (gql_str){kj, k.len + 3};
  pf->key_short = (uint8_t)(k.len + 4);
  return true;
}

static void finish_field(pb *b, plan_field *pf, uint32_t depth) {
  const gql_field *def = pf->field;
  pf->ordinal = b->p->nplanned++;
  if (!key_in_pad(pf) && !make_key_json(b, pf, depth)) {
    b->err = GQL_ENOMEM;
    return;
  }
  const gql_ast_selection *node = pf->occs[0].node;
  if (def->nargs) {
    pf->has_args = true;
    bool vars = false;
    for (uint32_t i = 0; i < node->args.count; i++)
      vars |= args_use_variables(node->args.items[i]->value);
    if (vars) {
      pf->arg_slot = b->p->nslots++;
    } else {
      const char *msg;
      uint32_t off;
      if (gql_exec_arg_values(&b->cc, def->args, def->nargs, &node->args,
                              node->h.start, &pf->args_const, &msg, &off) < 0) {
        pf->arg_error = msg;
        pf->arg_error_off = off;
      }
      pf->args_ready = !pf->arg_error && pf->args_const;
    }
  }
  uint32_t t = def->type.type;
  const gql_type *ty = gql_schema_type_at(b->s, t);
  const gql_schema *s = b->s;
  pf->leaf = ty->kind == GQL_TYPE_ENUM     ? LEAF_ENUM
             : ty->kind != GQL_TYPE_SCALAR ? LEAF_NONE
             : t == s->t_int               ? LEAF_INT
             : t == s->t_float             ? LEAF_FLOAT
             : t == s->t_string            ? LEAF_STRING
             : t == s->t_boolean           ? LEAF_BOOLEAN
             : t == s->t_id                ? LEAF_ID
                                           : LEAF_CUSTOM;
  gql_type_ref ft = def->type;
  pf->dleaf = gql_exec_fast_kind(ft, pf->leaf);
  pf->plain = !pf->meta && !pf->has_args;
  const exec_resolver *r = def->resolver;
  pf->fn = r ? r->fn : gql_exec_default_resolver;
  pf->type = ft;
  gql_type_ref nn = gql_type_ref_nullable(ft);
  if (gql_type_ref_is_list(nn)) {
    gql_type_ref it = gql_type_ref_unwrap(nn);
    pf->list_item = it;
    pf->list_dleaf = gql_exec_fast_kind(it, pf->leaf);
  }
  pf->member = r && pf->plain ? member_fast(r->member, pf->dleaf) : 0;
  pf->member_off = r ? r->offset : 0;
  if (r && r->list && pf->plain) {
    /* list_member_fits made the field [I] or [I]! with a named I or I!,
     * whose list_dleaf is then LEAF_ENUM or LEAF_OBJECT */
    pf->member =
        r->list == GQL_LIST_ENUM_U8 ? MEMBER_LIST_ENUM : MEMBER_LIST_OBJECTS;
  }
  pf->named = ty;
  pf->named_object = ty->kind == GQL_TYPE_OBJECT;
  pf->items_one = pf->named_object && pf->list_item.nmods == 1 &&
                  pf->list_item.mods[0] == '!';
  const exec_type *et = ty->exec_data;
  pf->resolve_type = et ? et->resolve_type : NULL;
  if (pf->member != MEMBER_NONE)
    pf->fn = gql_exec_member_fn(pf->member);
  if (pf->key_short) {
    /* written by key_in_pad */
  } else if (pf->key_json.len < KEY_PAD_JSON) {
    memset(pf->key_pad, 0, sizeof pf->key_pad);
    pf->key_pad[0] = ',';
    memcpy(pf->key_pad + 2, pf->key_json.ptr, pf->key_json.len);
    pf->key_short = (uint8_t)(pf->key_json.len + 1);
  } else {
    pf->key_short = 0;
  }
  bool composite = ty->kind == GQL_TYPE_OBJECT ||
                   ty->kind == GQL_TYPE_INTERFACE || ty->kind == GQL_TYPE_UNION;
  if (pf->meta || !composite)
    return;
  const uint32_t *types = &t;
  uint32_t ntypes = 1;
  if (ty->kind != GQL_TYPE_OBJECT) {
    types = ty->possible;
    ntypes = ty->npossible;
  }
  pf->subs = gql_arena_alloc(b->a, sizeof *pf->subs * (ntypes + 1));
  pf->sub_types = gql_arena_alloc(b->a, sizeof *pf->sub_types * (ntypes + 1));
  if (!pf->subs || !pf->sub_types) {
    b->err = GQL_ENOMEM;
    return;
  }
  uint32_t lo = UINT32_MAX, hi = 0;
  for (uint32_t i = 0; i < ntypes && !b->err; i++) {
    pf->sub_types[i] = types[i];
    pf->subs[i] = build_set(b, pf->occs, pf->nocc, types[i], depth + 1);
    lo = types[i] < lo ? types[i] : lo;
    hi = types[i] > hi ? types[i] : hi;
  }
  pf->nsubs = ntypes;
  /* an abstract type's possible types close together in the type table:
   * sub-plans by type index (sub_plan's lookup without a scan) */
  if (ntypes > 1 && !b->err && hi - lo < 4 * ntypes &&
      (pf->sub_table =
           gql_arena_alloc(b->a, sizeof *pf->sub_table * (hi - lo + 1)))) {
    memset(pf->sub_table, 0, sizeof *pf->sub_table * (hi - lo + 1));
    for (uint32_t i = 0; i < ntypes; i++)
      pf->sub_table[types[i] - lo] = pf->subs[i];
    pf->sub_lo = lo;
    pf->sub_span = hi - lo + 1;
  }
  if (pf->member == MEMBER_LIST_OBJECTS && !b->err) {
    uint32_t item_type = ((const exec_resolver *)def->resolver)->item_type;
    if (pf->named_object)
      pf->list_plan = pf->subs[0];
    for (uint32_t i = 0; i < ntypes && item_type != GQL_TYPE_AUTO; i++)
      if (pf->sub_types[i] == item_type)
        pf->list_plan = pf->subs[i];
  }
}

static uint64_t set_hash(const plan_occ *parents, uint32_t nparents,
                         uint32_t type) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ type;
  for (uint32_t i = 0; i < nparents; i++) {
    h = (h ^ (uint64_t)(uintptr_t)parents[i].node) * 0xff51afd7ed558ccdull;
    h = (h ^ (uint64_t)(uintptr_t)parents[i].conds ^ parents[i].nconds) *
        0xc4ceb9fe1a85ec53ull;
    h ^= h >> 29;
  }
  return h ? h : 1;
}

static bool same_parents(const plan_occ *a, const plan_occ *b, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (a[i].node != b[i].node || a[i].conds != b[i].conds ||
        a[i].nconds != b[i].nconds)
      return false;
  return true;
}

/* When a parent's selections have a fragment spread: what collecting
 * `parents` depends on, as words: per parent its
 * conditions and then its selections, each as its node, except that a
 * fragment spread without directives is its fragment's definition. Sets
 * with equal signatures and type collect the same field nodes under the
 * same conditions, so they are one plan: `luke: human { ...H }` and
 * `leia: human { ...H }` share theirs. NULL without spreads (then the
 * parents are the key) or memory. */
static uintptr_t *set_signature(pb *b, const plan_occ *parents,
                                uint32_t nparents, uint32_t *len) {
  size_t n = 0;
  bool spreads = false;
  for (uint32_t i = 0; i < nparents; i++) {
    const gql_ast_selection_set *ss = parents[i].node->selection_set;
    uint32_t count = ss ? ss->selections.count : 0;
    n += 2 + count;
    for (uint32_t j = 0; j < count && !spreads; j++)
      spreads = ss->selections.items[j]->h.kind == GQL_AST_FRAGMENT_SPREAD;
  }
  if (!spreads) /* other parents collect other nodes */
    return NULL;
  if (n > UINT32_MAX) {
    b->err = GQL_ELIMIT;
    return NULL;
  }
  uintptr_t *sig = gql_arena_alloc(b->tmp, n * sizeof *sig);
  if (!sig) {
    b->err = GQL_ENOMEM;
    return NULL;
  }
  uintptr_t *w = sig;
  for (uint32_t i = 0; i < nparents; i++) {
    const gql_ast_selection_set *ss = parents[i].node->selection_set;
    uint32_t count = ss ? ss->selections.count : 0;
    *w++ = (uintptr_t)parents[i].conds;
    *w++ = (uintptr_t)parents[i].nconds << 32 | count;
    for (uint32_t j = 0; j < count; j++) {
      const gql_ast_selection *sel = ss->selections.items[j];
      uintptr_t v = (uintptr_t)sel;
      if (sel->h.kind == GQL_AST_FRAGMENT_SPREAD && !sel->directives.count) {
        uint32_t fi = spread_index(b, sel);
        if (fi != UINT32_MAX)
          v = (uintptr_t)b->p->doc->definitions.items[fi];
      }
      *w++ = v;
    }
  }
  *len = (uint32_t)n;
  return sig;
}

static uint64_t sig_hash(const uintptr_t *sig, uint32_t n, uint32_t type) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ type;
  for (uint32_t i = 0; i < n; i++) {
    h = (h ^ (uint64_t)sig[i]) * 0xff51afd7ed558ccdull;
    h ^= h >> 29;
  }
  return h ? h : 1;
}

static __attribute__((noinline)) plan_set *
build_set_new(pb *b, const plan_occ *parents, uint32_t nparents, uint32_t type,
              uint32_t depth);

static plan_set *build_set(pb *b, const plan_occ *parents, uint32_t nparents,
                           uint32_t type, uint32_t depth) {
  if (depth == 0 ||
      b->p->incremental) /* the root set is met once; a
                          * @defer's usages are per place (graphql-js's
                          * DeferUsage per collection) */
    return build_set_new(b, parents, nparents, type, depth);
  uint32_t nsig = 0;
  const uintptr_t *sig = set_signature(b, parents, nparents, &nsig);
  if (b->err)
    return NULL;
  uint64_t h =
      sig ? sig_hash(sig, nsig, type) : set_hash(parents, nparents, type);
  uint32_t nkey = sig ? nsig : nparents;
  uint32_t mask = b->sets_cap - 1;
  if (b->sets_cap) {
    for (uint32_t i = (uint32_t)h & mask;; i = (i + 1) & mask) {
      struct set_memo *m = &b->sets[i];
      if (!m->hash)
        break;
      if (m->hash != h || m->type != type || m->nkey != nkey ||
          !m->sig != !sig ||
          (sig ? memcmp(m->sig, sig, nsig * sizeof *sig) != 0
               : !same_parents(m->parents, parents, nparents)))
        continue;
      /* reuse it unless a limit would be reached inside: then build it
       * again, so that the error is the one the walk finds */
      if (depth + m->height > MAX_PLAN_DEPTH ||
          (uint64_t)b->planned + m->planned > b->max)
        break;
      b->planned += m->planned;
      if (depth + m->height > b->deepest)
        b->deepest = depth + m->height;
      return m->set;
    }
  }
  uint32_t planned = b->planned, deepest = b->deepest;
  b->deepest = depth;
  plan_set *ps = build_set_new(b, parents, nparents, type, depth);
  uint32_t height = b->deepest - depth;
  if (deepest > b->deepest)
    b->deepest = deepest;
  if (!ps || b->err)
    return ps;
  if ((b->nsets + 1) * 2 > b->sets_cap) {
    uint32_t cap = b->sets_cap ? b->sets_cap * 2 : 16;
    struct set_memo *t = gql_arena_alloc(b->tmp, cap * sizeof *t);
    if (!t)
      return ps; /* not remembered: built again if met again */
    memset(t, 0, cap * sizeof *t);
    for (uint32_t j = 0; j < b->sets_cap; j++) {
      if (!b->sets[j].hash)
        continue;
      uint32_t k = (uint32_t)b->sets[j].hash & (cap - 1);
      while (t[k].hash)
        k = (k + 1) & (cap - 1);
      t[k] = b->sets[j];
    }
    b->sets = t;
    b->sets_cap = cap;
  }
  mask = b->sets_cap - 1; /* the table may have grown while building */
  uint32_t k = (uint32_t)h & mask;
  while (b->sets[k].hash)
    k = (k + 1) & mask;
  b->sets[k] = (struct set_memo){
      h, parents, sig, nkey, type, b->planned - planned, height, ps};
  b->nsets++;
  return ps;
}

static __attribute__((noinline)) plan_set *
build_set_new(pb *b, const plan_occ *parents, uint32_t nparents, uint32_t type,
              uint32_t depth) {
  if (depth > MAX_PLAN_DEPTH) {
    b->err = GQL_ELIMIT;
    b->msg = "The operation is nested too deeply to plan.";
    return NULL;
  }
  /* Room for a field per selection of the parents, and 4 more when one
   * is a fragment (which may add any number): the set, its fields and
   * their first occurrences are then one arena call. */
  uint32_t room = 0;
  bool fragments = false;
  for (uint32_t i = 0; i < nparents; i++) {
    const gql_ast_selection_set *ss = parents[i].node->selection_set;
    if (!ss)
      continue;
    room += ss->selections.count;
    for (uint32_t j = 0; j < ss->selections.count && !fragments; j++)
      fragments = ss->selections.items[j]->h.kind != GQL_AST_FIELD;
  }
  if (fragments)
    room = room > UINT32_MAX / 2 ? UINT32_MAX : room + 4;
  size_t fsize = sizeof(plan_field) + sizeof(plan_occ);
  if (room > (SIZE_MAX - sizeof(plan_set)) / fsize) {
    b->err = GQL_ENOMEM;
    return NULL;
  }
  plan_set *ps = gql_arena_alloc(b->a, sizeof *ps + room * fsize);
  if (!ps) {
    b->err = GQL_ENOMEM;
    return NULL;
  }
  plan_entry inline_entries[INLINE_ENTRIES];
  set_builder sb;
  clear(&sb, sizeof sb);
  sb.entries = inline_entries;
  sb.ecap = INLINE_ENTRIES;
  if (room) { /* sb.keys is made at the 17th field */
    sb.fields = (plan_field *)(ps + 1);
    sb.first_occs = (plan_occ *)(sb.fields + room);
    sb.cap = sb.nfirst_occs = room;
  }
  for (uint32_t i = 0; i < nparents && !b->err; i++)
    collect(b, &sb, parents[i].node->selection_set, parents[i].conds,
            parents[i].nconds, parents[i].defer, type);
  if (sb.nfields >= 17)
    gql_strmap_free(&sb.keys);
  /* the entries were collected in the working memory: the plan keeps them
   * at their size (a set to check takes the entries' path, which checks) */
  bool any_cond = sb.any_cond || sb.check_conds || sb.any_defer;
  plan_entry *entries =
      any_cond ? gql_arena_alloc(b->a, sizeof *entries * sb.nentries) : NULL;
  if (any_cond && !entries) {
    b->err = GQL_ENOMEM;
    return NULL;
  }
  if (any_cond)
    memcpy(entries, sb.entries, sizeof *entries * sb.nentries);
  *ps = (plan_set){.type = type,
                   .fields = sb.fields,
                   .fields_end = sb.fields + sb.nfields,
                   .nfields = sb.nfields,
                   .entries = entries,
                   .nentries = any_cond ? sb.nentries : 0,
                   .any_cond = any_cond,
                   .check_conds = sb.check_conds || sb.any_defer,
                   .any_defer = sb.any_defer,
                   .defers = sb.defers,
                   .ndefers = sb.ndefers};
  for (uint32_t i = 0; i < ps->nfields && !b->err; i++)
    finish_field(b, &ps->fields[i], depth);
  ps->all_members = !ps->any_cond && ps->nfields > 0;
  for (uint32_t i = 0; i < ps->nfields; i++)
    ps->all_members &= ps->fields[i].member != MEMBER_NONE;
  return ps;
}

/* ------------------------------------------------------------ prepare */

/* Validation by the walk of the specified rules (the fast path said
 * nothing): 0, or GQL_EVALIDATION with the errors in *errors, or another
 * error. Calls the end of the validation phase of `h` unless it answers
 * 0 (then gql_prepare does). */
static __attribute__((noinline)) int
validate_walk(const gql_schema *s, const gql_document *doc, gql_arena *tmp,
              const gql_hooks *h, gql_errors *errors) {
  gql_error_list list;
  gql_error_list *l = gql_errors_begin(&list, errors, 0);
  if (!l) /* the hooks still see the errors */
    gql_error_list_init(l = &list, tmp, 0);
  uint32_t nrules;
  const gql_vrule *const *rules = gql_specified_rules(&nrules);
  int rc = gql_validate_document(s, doc, rules, nrules, NULL, l);
  if (rc == 0 && !l->count)
    return 0;
  if (h)
    h->prepare_phase(h->ctx, 1, true, rc ? rc : GQL_EVALIDATION, l->items,
                     l->count);
  if (rc == 0) {
    gql_errors_end(l, errors);
    rc = GQL_EVALIDATION;
  }
  return rc;
}

void gql_prepared_free(gql_prepared *p) {
  if (p)
    gql_arena_free(p->arena);
}

size_t gql_prepared_bytes(const gql_prepared *p) {
  return gql_arena_reserved(p->arena);
}

gql_operation_type gql_prepared_operation(const gql_prepared *p) {
  return p->kind;
}

bool gql_prepared_incremental(const gql_prepared *p) {
  return p->incremental;
}

/* Whether an `@` of the text is followed by `defer` or `stream` (one in a
 * string or comment only costs the plan its shared sets); memchr keeps a
 * document without directives at a few instructions. */
static bool has_defer_or_stream(gql_str text) {
  const char *p = text.ptr, *end = text.ptr + text.len;
  while ((p = memchr(p, '@', (size_t)(end - p)))) {
    p++;
    while (p < end &&
           (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == ','))
      p++;
    if ((end - p >= 5 && memcmp(p, "defer", 5) == 0) ||
        (end - p >= 6 && memcmp(p, "stream", 6) == 0))
      return true;
  }
  return false;
}

/* Sets inc_free on `ps` and everything below it: true when no field has a
 * @stream and no set a @defer (an incremental execution then writes its
 * objects as a plain one does). */
static bool plan_inc_free(plan_set *ps, bool *stream) {
  bool free_ = !ps->any_defer;
  for (uint32_t i = 0; i < ps->nfields; i++) {
    plan_field *pf = &ps->fields[i];
    bool f = true;
    for (uint32_t j = 0; j < pf->nocc && f; j++)
      f = !gql_ast_find_directive(&pf->occs[j].node->directives, "stream");
    *stream |= !f;
    for (uint32_t j = 0; j < pf->nsubs; j++)
      f &= plan_inc_free(pf->subs[j], stream);
    pf->inc_free = f;
    free_ &= f;
  }
  ps->inc_free = free_;
  return free_;
}

static int select_operation(gql_prepared *p, const char *name,
                            const char **msg) {
  const gql_ast_operation *op = NULL;
  for (uint32_t i = 0; i < p->doc->definitions.count; i++) {
    const gql_ast_node *d = p->doc->definitions.items[i];
    if (d->kind != GQL_AST_OPERATION_DEFINITION)
      continue;
    const gql_ast_operation *o = (const gql_ast_operation *)d;
    if (!name) {
      if (op) {
        *msg = "Must provide operation name if query contains multiple "
               "operations.";
        return GQL_EINVAL;
      }
      op = o;
    } else if (o->name.ptr &&
               gql_str_eq(gql_ast_name_str(o->name), gql_cstr(name))) {
      op = o;
    }
  }
  if (!op) {
    *msg = name ? gql_arena_sprintf(p->arena, "Unknown operation named \"%s\".",
                                    name)
                : "Must provide an operation.";
    return GQL_EINVAL;
  }
  p->op = op;
  return 0;
}

int gql_prepare(gql_schema *s, const char *query, size_t len,
                const char *operation_name, const gql_prepare_options *options,
                gql_prepared **out, gql_errors *errors) {
  static const gql_prepare_options defaults; /* all zero */
  const gql_prepare_options *o = options ? options : &defaults;
  *out = NULL;
  if (errors)
    errors->items = NULL, errors->count = 0;
  if (!s || (!query && len) || (o->hooks && o->trace))
    return GQL_EINVAL;
  int rc = gql_exec_finalized(s) ? 0 : gql_schema_finalize(s);
  if (rc)
    return rc;
  /* one allocator call for the arena and a first block that a document of
   * this length usually fits in */
  gql_arena *arena = gql_arena_new_sized(o->alc, prepared_block(len));
  if (!arena)
    return GQL_ENOMEM;
  /* the text follows the prepared operation, padded for gql_parse_padded
   * (its first pad byte is the NUL of a C string), then the parser's
   * first node chunk: one arena call for the three */
  size_t text_size = (len + GQL_PARSE_PAD + 7) & ~(size_t)7;
  size_t chunk = gql_parse_first_chunk(len);
  gql_prepared *p = len < SIZE_MAX / 2
                        ? gql_arena_alloc(arena, sizeof *p + text_size + chunk)
                        : NULL;
  if (!p) {
    gql_arena_free(arena);
    return GQL_ENOMEM;
  }
  char *text = (char *)(p + 1);
  if (len)
    memcpy(text, query, len);
  memset(text + len, 0, GQL_PARSE_PAD);
  clear(p, sizeof *p);
  p->arena = arena;
  p->s = s;
  p->text = (gql_str){text, len};
  const gql_hooks *h =
      o->trace ? &gql_exec_trace_hooks(o->trace)->pub : o->hooks;
  if (h && !h->prepare_phase)
    h = NULL;
  gql_syntax_error se;
  if (h)
    h->prepare_phase(h->ctx, 0, false, 0, NULL, 0);
  rc = gql_parse_padded(arena, text, len, &o->parse, text + text_size, &p->doc,
                        &se);
  if (h) {
    gql_error pe = {se.message, &se.location, 1};
    h->prepare_phase(h->ctx, 0, true, rc, rc ? &pe : NULL, rc ? 1 : 0);
  }
  if (rc) {
    if (rc == GQL_ESYNTAX || rc == GQL_ELIMIT)
      gql_errors_set_one(errors, se.message, &se.location);
    gql_arena_free(arena);
    return rc;
  }
  gql_arena *tmp = o->scratch ? o->scratch : arena;
  if (!o->no_validate) {
    if (h)
      h->prepare_phase(h->ctx, 1, false, 0, NULL, 0);
    /* most documents pass the fast path, with no error list to set up */
    rc = gql_validate_fast(s, p->doc)
             ? 0
             : validate_walk(s, p->doc, tmp, h, errors);
    if (h && rc == 0)
      h->prepare_phase(h->ctx, 1, true, 0, NULL, 0);
    if (rc) {
      gql_arena_free(arena);
      return rc;
    }
  }
  const char *msg = NULL;
  rc = select_operation(p, operation_name, &msg);
  if (rc) {
    gql_errors_set_one(errors, msg, NULL);
    gql_arena_free(arena);
    return rc;
  }
  const gql_ast_operation *op = p->op;
  p->kind = op->operation;
  p->root_type = op->operation == GQL_OP_QUERY
                     ? s->query /* most operations: no call */
                     : gql_schema_root_type(s, op->operation);
  /* Variables. */
  p->nvars = op->variables.count;
  if (p->nvars) {
    p->vars = gql_arena_alloc(arena, sizeof *p->vars * p->nvars);
    if (!p->vars)
      goto nomem;
  }
  for (uint32_t i = 0; i < p->nvars; i++) {
    const gql_ast_variable_definition *vd = op->variables.items[i];
    plan_var *pv = &p->vars[i];
    *pv = (plan_var){.name = gql_ast_name_str(vd->variable->u.name), .def = vd};
    if (!gql_schema_type_ref_from_ast(s, vd->type, arena, &pv->type) ||
        !gql_schema_is_input(s, pv->type.type))
      pv->type.type = GQL_NO_TYPE;
  }
  if (p->root_type == GQL_NO_TYPE) {
    static const char *names[] = {"query", "mutation", "subscription"};
    p->root_error = gql_arena_sprintf(
        arena, "Schema is not configured to execute %s operation.",
        names[op->operation]);
    p->answer_early = true; /* the error alone: there is no root to walk */
    *out = p;
    return 0;
  }
  p->incremental = has_defer_or_stream(p->text);
  pb b;
  clear(&b, offsetof(pb, frags));
  b.p = p;
  b.s = s;
  b.a = arena;
  b.tmp = tmp;
  b.max = o->max_plan_size ? o->max_plan_size : 100000;
  b.cc = (coerce_ctx){.s = s, .arena = arena};
  uint32_t ndefs = p->doc->definitions.count;
  for (uint32_t i = 0; i < ndefs; i++)
    b.nfrags +=
        p->doc->definitions.items[i]->kind == GQL_AST_FRAGMENT_DEFINITION;
  if (b.nfrags > FEW_FRAGMENTS)
    gql_strmap_init(&b.frags, tmp_allocator(&b));
  if (b.nfrags) { /* without fragments, nothing is expanded */
    b.stack = gql_arena_alloc(tmp, sizeof *b.stack * MAX_FRAGMENT_DEPTH);
    b.frag_list = gql_arena_alloc(tmp, sizeof *b.frag_list * b.nfrags);
    b.frag_index = gql_arena_alloc(tmp, sizeof *b.frag_index * b.nfrags);
    if (!b.stack || !b.frag_list || !b.frag_index)
      b.err = GQL_ENOMEM;
  }
  for (uint32_t i = 0, n = 0; b.nfrags && i < ndefs && !b.err; i++) {
    const gql_ast_node *d = p->doc->definitions.items[i];
    if (d->kind != GQL_AST_FRAGMENT_DEFINITION)
      continue;
    const gql_ast_fragment *f = (const gql_ast_fragment *)d;
    b.frag_list[n] = f;
    b.frag_index[n++] = i;
    if (b.nfrags > FEW_FRAGMENTS &&
        gql_strmap_put(&b.frags, gql_ast_name_str(f->name), i) < 0)
      b.err = GQL_ENOMEM;
  }
  if (!b.err) {
    /* the root set's parent: only its selection set is read */
    gql_ast_selection root;
    root.selection_set = op->selection_set;
    plan_occ occ = {&root, NULL, 0, 0};
    p->root = build_set(&b, &occ, 1, p->root_type, 0);
  }
  if (b.nfrags > FEW_FRAGMENTS)
    gql_strmap_free(&b.frags);
  if (b.err) {
    rc = b.err;
    if (b.msg)
      gql_errors_set_one(errors, b.msg, NULL);
    gql_arena_free(arena);
    return rc;
  }
  if (p->incremental && p->root) {
    plan_inc_free(p->root, &p->any_stream);
    gql_exec_defer_prepare(p);
  }
  if (p->kind == GQL_OP_SUBSCRIPTION && p->root) {
    /* the root field's value is its stream's event, per event (see
     * gql_exec_sub_resolver): never a member written in place */
    p->root->all_members = false;
    for (uint32_t i = 0; i < p->root->nfields; i++) {
      plan_field *pf = &p->root->fields[i];
      if (pf->meta)
        continue;
      pf->member = MEMBER_NONE;
      pf->fn = gql_exec_sub_resolver;
      pf->sub_root = true;
    }
  }
  p->answer_early = p->kind == GQL_OP_SUBSCRIPTION || p->nvars || p->nslots ||
                    p->root_error || p->bad_condition;
  *out = p;
  return 0;
nomem:
  gql_arena_free(arena);
  return GQL_ENOMEM;
}
