/*
 * The executor's internals: plans, coercion and the execution state.
 *
 * An operation compiles once (gql_prepare) into a tree of plan sets: one per
 * selection set and concrete object type, each the merged list of fields that
 * CollectFields would give, with @skip/@include left as conditions on
 * variables. Execution walks the plan and never looks at the AST, except for
 * error locations and argument literals that depend on variables.
 */
#ifndef GQL_EXEC_H
#define GQL_EXEC_H

#include "../core/core.h"
#include "../core/errors.h"
#include "../json/json.h"
#include "../language/ast.h"
#include "../schema/schema.h"

/* ---- per-schema execution data (gql_type.exec_data) */

typedef struct exec_type {
  gql_type_ref named; /* a stable reference to the bare type */
  gql_resolve_type_fn resolve_type;
  /* An enum's values as a list writes them (gql_schema_finalize): value i
   * at quoted + i * ENUM_SLOT is ,"NAME" zero-padded, its length in the
   * slot's last byte; NULL when a name is too long for a slot. */
  const char *quoted;
} exec_type;
enum { ENUM_SLOT = 32 };

/* The resolver of a field as registered (gql_field.resolver points here). */
typedef struct exec_resolver {
  gql_resolver_fn fn;
  unsigned flags;
  uint8_t member;  /* gql_member_kind of gql_schema_set_member, or 0 */
  uint32_t offset; /* the member's (a list member's items) */
  /* gql_schema_set_list_member: its gql_list_kind (else 0) and the rest of
   * its gql_list_member */
  uint8_t list;
  bool items_inline;
  uint8_t count_size;
  uint32_t count_offset;
  uint32_t stride;
  uint32_t item_type;
} exec_resolver;

/* ---- plans */

/* Include the occurrence when variable `var` (a boolean) equals `want`. */
typedef struct plan_cond {
  uint32_t var;
  bool want;
} plan_cond;

/* A @defer of an inline fragment or spread (graphql-js 17's DeferUsage),
 * one per place the plan collected it: `parent` the @defer around it (NULL:
 * none). `var`: the variable of its `if` (UINT32_MAX: a literal true or no
 * `if`; a literal false makes no usage); a variable that is not false
 * leaves it on, as the argument's default (true) does. */
typedef struct plan_defer {
  const struct plan_defer *parent;
  const gql_ast_selection *node;
  gql_str label; /* ptr NULL: no label */
  uint32_t var;
  uint32_t index; /* in gql_prepared.defers */
} plan_defer;

/* One place a merged field was written in the document. */
typedef struct plan_occ {
  const gql_ast_selection *node;
  const plan_cond *conds;
  uint32_t nconds;
  /* the innermost @defer around it: gql_prepared.defers[defer - 1], or 0
   * (an index in the padding: occurrences stay 24 bytes) */
  uint32_t defer;
} plan_occ;

enum { META_NONE, META_TYPENAME };

/* How the executor writes a member field itself (plan_field.member): the
 * member's kind and the field's type together. */
enum {
  MEMBER_NONE,
  MEMBER_INT32,     /* int32_t for Int or Float */
  MEMBER_INT64_INT, /* int64_t for Int: in Int's range */
  MEMBER_INT64,     /* int64_t for Float */
  MEMBER_DOUBLE,    /* double for Float: finite */
  MEMBER_BOOL,      /* bool for Boolean */
  MEMBER_STR,       /* gql_str for String or ID: ptr not NULL */
  MEMBER_CSTR,      /* const char * for String or ID: not NULL */
  MEMBER_ENUM,      /* uint8_t for an enum: an index of its values */
  /* list members (gql_schema_set_list_member), for [I] or [I]! (I, I! the
   * named type): */
  MEMBER_LIST_ENUM,   /* enum indices for an enum I */
  MEMBER_LIST_OBJECTS /* object pointers or structs for a composite I */
};

/* What the field's named type is, for the writers' fast paths. */
enum {
  LEAF_NONE, /* object, interface or union */
  LEAF_INT,
  LEAF_FLOAT,
  LEAF_STRING,
  LEAF_BOOLEAN,
  LEAF_ID,
  LEAF_ENUM,
  LEAF_CUSTOM,
  LEAF_OBJECT /* only in dleaf: an object, interface or union T or T! */
};

typedef struct plan_set plan_set;

/* The writers' fast-path kind of a value of type `t` whose named type's
 * leaf kind is `leaf`: that kind (LEAF_OBJECT for a composite) when t is
 * the bare named type, T or T!; else LEAF_NONE. */
static inline uint8_t gql_exec_fast_kind(gql_type_ref t, uint8_t leaf) {
  bool bare = t.nmods == 0 || (t.nmods == 1 && t.mods[0] == '!');
  return !bare ? LEAF_NONE : leaf != LEAF_NONE ? leaf : LEAF_OBJECT;
}

typedef struct plan_field {
  gql_str key;            /* response key */
  gql_str key_json;       /* the key as written: "key": */
  const gql_field *field; /* schema field (meta fields included) */
  uint8_t meta;
  uint8_t leaf;  /* LEAF_* of the named type */
  uint8_t dleaf; /* when the field's type is T or T!: the leaf, or
                  * LEAF_OBJECT for a composite; else LEAF_NONE */
  bool plain;    /* neither __typename nor arguments: the resolver is
                  * called straight (when no hook is attached) */
  /* Arguments coerced at prepare without an error (args_const set): an
   * untraced call needs nothing else before the resolver. */
  bool args_ready;
  bool named_object;  /* the named type is an object type (subs[0] is its
                       * plan) */
  bool items_one;     /* [T!] or [T!]! of an object type T: non-null items
                       * with one plan (see items_last) */
  gql_resolver_fn fn; /* the resolver, or the default resolver */
  bool sub_root;      /* a subscription's root field: fn is
                       * gql_exec_sub_resolver */
  /* A member field (gql_schema_set_member) that the executor writes
   * itself: MEMBER_* when the field is plain and the member's kind is the
   * fast path of dleaf, else MEMBER_NONE; the member's offset. */
  uint8_t member;
  uint32_t member_off;
  /* A list member (MEMBER_LIST_*): member_off is its items' offset (the
   * rest is in field->resolver, an exec_resolver); for objects, the plan
   * of every item when it does not depend on the item (an object type's,
   * or the list member's concrete type's), else NULL (resolve_type's per
   * item). */
  const plan_set *list_plan;
  const gql_type *named;            /* the named type of `type` */
  gql_resolve_type_fn resolve_type; /* the abstract named type's, or NULL */
  gql_type_ref type;                /* field->type */
  /* When type is a list ([I] or [I]!): I, and the fast-path kind of its
   * items (as dleaf for a field of type I) */
  gql_type_ref list_item;
  uint8_t list_dleaf;
  /* ',', one byte for the separator and key_json, when the key is under
   * 31 bytes (key_short is then the separator's and key's length, else 0):
   * the separator and key go out as one or two 16-byte copies from
   * key_pad + 1, and ",{" or "[{" and the key from key_pad */
  char key_pad[40];
  uint8_t key_short;
  uint32_t parent_type; /* the concrete object type */
  plan_occ *occs;       /* in collection order */
  uint32_t nocc, occ_cap;
  bool conditional; /* included only when one of its occurrences is */
  bool has_args;
  /* no occurrence has a @stream and its sub-plans are inc_free (only
   * set in an incremental document) */
  bool inc_free;
  /* Arguments: coerced once at prepare when they use no variable
   * (args_const), else per execution in slot `arg_slot`. */
  const gql_json_value *args_const;
  const char *arg_error; /* a constant argument that cannot be coerced */
  uint32_t arg_slot;
  uint32_t arg_error_off;
  /* Sub-plans, one per possible concrete type of the field's named type. */
  plan_set **subs;
  uint32_t *sub_types;
  uint32_t nsubs;
  /* sub-plans by type index - sub_lo when sub_span (else 0): NULL for a
   * type that is not possible */
  plan_set **sub_table;
  uint32_t sub_lo, sub_span;
  uint32_t ordinal; /* 0..gql_prepared.nplanned, for per-field tables */
} plan_field;

/* In a conditional set, the entries give the collection order of the
 * occurrences: occurrence `occ` of field `field`. */
typedef struct plan_entry {
  uint32_t field;
  uint32_t occ;
} plan_entry;

struct plan_set {
  uint32_t type; /* concrete object type */
  plan_field *fields;
  const plan_field *fields_end; /* fields + nfields */
  uint32_t nfields;
  plan_entry *entries; /* only when any_cond */
  uint32_t nentries;
  bool any_cond;
  bool all_members; /* not any_cond, and every field has pf->member */
  /* Collecting the set met a @skip or @include whose `if` is a variable
   * (or, unvalidated, not a boolean literal): an execution whose such
   * variables may lack a value checks the set as graphql-js's collectFields
   * would (gql_exec_conditions_fail). Implies any_cond. Also set on a set
   * with any_defer: the direct walk looks at both first (cond_check). */
  bool check_conds;
  /* An occurrence of a field is under a @defer, or the set's selections
   * have one (`defers`: the usages met collecting this set): an
   * incremental execution splits the set (incremental.c). Implies
   * any_cond. */
  bool any_defer;
  const plan_defer **defers;
  uint32_t ndefers;
  /* An incremental document's set with no @defer or @stream in it or below
   * (plan_inc_free): its objects are written as in a plain execution. (In
   * the padding: a set stays 64 bytes.) */
  bool inc_free;
  /* A set with any_defer whose split gql_prepare made (defer.c): its
   * split_memo is gql_prepared.memos[memo_slot - 1]; 0: none (also in the
   * padding). */
  uint16_t memo_slot;
};

typedef struct plan_var {
  gql_str name;
  gql_type_ref type; /* GQL_NO_TYPE type when unknown or not an input */
  const gql_ast_variable_definition *def;
  bool in_condition; /* the `if` of a @skip or @include */
} plan_var;

struct gql_prepared {
  gql_arena *arena;
  const gql_schema *s;
  gql_str text;
  gql_document *doc;
  const gql_ast_operation *op;
  gql_operation_type kind;
  uint32_t root_type;
  plan_set *root;
  plan_var *vars;
  uint32_t nvars;
  uint32_t nslots;        /* argument slots that depend on variables */
  const char *root_error; /* "Schema is not configured to execute ..." */
  uint32_t nplanned;      /* plan fields (see plan_field.ordinal) */
  /* a @skip or @include whose `if` is not a boolean (unvalidated) */
  bool bad_condition;
  /* gql_execute has to look before running the fields: a subscription,
   * variables, argument slots, a root error or a bad condition */
  bool answer_early;
  /* the document has a @defer or @stream (plan sets are then not shared) */
  bool incremental;
  bool any_stream; /* a field of the plan has a @stream (in an incremental
                    * document) */
  const plan_defer **defers; /* the usages (plan_occ.defer) */
  uint32_t ndefers, defers_cap;
  /* the splits of the sets with a memo_slot in the initial result (and
   * their groups'), made once when no variable decides them */
  struct split_memo **memos;
  /* Every deferred fragment runs with the initial result (eager.c): the
   * document's @defer wrap whole objects (each a set with one usage, no
   * field of its own left, none nested, nothing conditional below), no
   * @stream, a synchronous query. twins (by memo_slot - 1, NULL for a set
   * that is not such an object): the set without its @defer, as a plain
   * execution walks it. The hints: the sizes of the last execution's
   * pending and incremental entries (relaxed atomics; a guess for the
   * next one's buffers). */
  bool eager_only;
  const struct plan_set **twins;
  uint32_t hint_pend, hint_eager;
};

/* At gql_prepare of an incremental document (defer.c): the splits that do
 * not depend on variables, kept with the plan (plan_set.memo_slot). */
void gql_exec_defer_prepare(gql_prepared *p);

/* ---- coercion (coerce.c) */

/* Where coercion allocates and how it reports. */
typedef struct coerce_ctx {
  const gql_schema *s;
  gql_arena *arena;
  const gql_json_value *const *vars; /* coerced variables or NULL */
  const plan_var *var_defs;
  uint32_t nvars;
} coerce_ctx;

/* graphql-js valueFromAST: NULL when invalid ("undefined"). */
const gql_json_value *gql_exec_value_from_ast(const coerce_ctx *c,
                                              const gql_ast_value *v,
                                              gql_type_ref type);
/* graphql-js getArgumentValues for a field node: 0 and *out (an object of
 * the provided and defaulted arguments), or -1 with *msg (in the arena) and
 * *off (byte offset of the node the error is about). */
int gql_exec_arg_values(const coerce_ctx *c, const gql_input_value *defs,
                        uint32_t ndefs, const gql_ast_arguments *args,
                        uint32_t node_off, const gql_json_value **out,
                        const char **msg, uint32_t *off);
/* graphql-js coerceVariableValues; errors to `errors` (at the variable
 * definitions of `source`). Fills vals[0..nvars). 0 or -1. */
int gql_exec_coerce_variables(const coerce_ctx *c, gql_str source,
                              const gql_json_value *inputs,
                              const gql_json_value **vals,
                              gql_error_list *errors);
/* The default value of an input value, coerced (valueFromAST); NULL when
 * there is none or it is invalid. */
const gql_json_value *gql_exec_default_value(const coerce_ctx *c,
                                             const gql_input_value *iv);
/* graphql-js inspect() into `out`. */
void gql_exec_inspect(gql_buf *out, const gql_json_value *v);
/* The same as a string in `arena` ("" when out of memory), for messages. */
char *gql_exec_inspect_str(gql_arena *arena, const gql_json_value *v);

/* ---- resolvers (resolvers.c) */

/* gql_schema_finalize has run: resolvers are frozen. */
static inline bool gql_exec_finalized(const gql_schema *s) {
  return s->meta_typename.resolver != NULL;
}

/* ---- introspection (introspection.c) */

/* A built-in resolver: for the fields of `type` named `field` (NULL: every
 * field without a resolver), or with `type` NULL the query type's meta
 * field `field` (__schema or __type); set by gql_schema_finalize where the
 * field has no resolver yet, in table order. */
typedef struct exec_builtin {
  const char *type;
  const char *field;
  gql_resolver_fn fn;
} exec_builtin;

/* The introspection types' resolvers and those of __schema and __type. */
const exec_builtin *gql_exec_introspection_resolvers(size_t *n);

/* ---- execution internals for built-in resolvers (members.c, out.c) */
/* The resolver of a member field (gql_schema_set_member): the general
 * path, taken when the executor does not write the member itself. */
void gql_exec_member_resolver(const gql_resolve_info *info, const void *parent,
                              gql_out *out);
/* The resolver a plan field with plan_field.member calls (a member
 * written straight when it can, else gql_exec_member_resolver). */
gql_resolver_fn gql_exec_member_fn(uint8_t member);
/* graphql-js defaultFieldResolver over a JSON parent. */
void gql_exec_default_resolver(const gql_resolve_info *info, const void *parent,
                               gql_out *out);
const gql_schema *gql_exec_info_schema(const gql_resolve_info *info);
const gql_schema *gql_exec_out_schema(const gql_out *o);
gql_arena *gql_exec_out_arena(const gql_out *o);

/* ---- subscriptions (subscribe.c) */

/* The phase of a subscription's execution: the subscribe phase runs the
 * root field's resolver, which hands its stream to gql_out_stream; an
 * event phase completes `event` as the root field's value. */
typedef struct exec_sub {
  bool event_phase;
  const gql_json_value *event;
  struct gql_stream *stream; /* subscribe phase: what the resolver gave */
  gql_stream_source source;  /* and its source (cancel NULL: none) */
  void *sub;                 /* the gql_subscription */
  struct exec_ctx *ctx;      /* the execution's (answer_early sets it) */
} exec_sub;
/* A subscription root field's resolver (out.c; plan.c puts it in place of
 * the field's and sets plan_field.sub_root): the field's own at subscribe
 * and when the operation runs once, the event in an event phase. */
void gql_exec_sub_resolver(const gql_resolve_info *info, const void *parent,
                           gql_out *out);
/* gql_execute for a subscription's phase. */
int gql_exec_execute_sub(const gql_prepared *p,
                         const gql_execute_params *params, exec_sub *sub);

/* ---- execution state shared with the tracer (src/trace) */

struct exec_ctx;
struct path_frame;
/* What a resolver is told (the executor fills it). It is the first member of
 * the field's gql_out, whose ctx, plan field and path these are; the parent
 * type is pf->parent_type. A field called straight (plain, no hooks) has
 * only ctx, pf, path and error set: args is read only when pf->has_args,
 * and trace only with hooks attached (both set by resolve_field then). */
struct gql_resolve_info {
  struct exec_ctx *ctx;
  const plan_field *pf;
  const struct path_frame *path;
  const char *error;          /* the resolver's own error (gql_out_error), or
                               * NULL */
  const gql_json_value *args; /* when pf->has_args */
  void *trace; /* the tracer's per-call data (resolve_start sets it) */
};

/* The planned field: stable for the prepared operation, the same for every
 * call of the field (a collapsed path has one or, under abstract types, a
 * few). */
const void *gql_exec_info_key(const gql_resolve_info *info);
/* Its plan_field.ordinal. */
static inline uint32_t gql_exec_info_ordinal(const gql_resolve_info *info) {
  return info->pf->ordinal;
}
const gql_field *gql_exec_info_field(const gql_resolve_info *info);
/* The field's first node in the document (NULL for none). */
const gql_ast_selection *gql_exec_info_node(const gql_resolve_info *info);
/* The error the resolver wrote (gql_out_error), or NULL. */
static inline const char *gql_exec_info_error(const gql_resolve_info *info) {
  return info->error;
}
/* Named segments of the response path (list indices not counted). */
uint32_t gql_exec_info_depth(const gql_resolve_info *info);
/* Appends the path as "a.0.b", or "a.*.b" when collapsing. */
void gql_exec_info_path_dotted(const gql_resolve_info *info, gql_buf *b,
                               bool collapse);
/* The same, NUL-terminated in `a` ("" when out of memory). */
gql_str gql_exec_info_path_str(const gql_resolve_info *info, gql_arena *a,
                               bool collapse);
/* List levels between the field and its parent field (the index segments
 * just above its own). */
uint32_t gql_exec_info_lists_above(const gql_resolve_info *info);
/* The coerced value of the operation's variable `name` (NULL: none). */
const gql_json_value *gql_exec_info_variable(const gql_resolve_info *info,
                                             gql_str name);

/* A pointer the tracer keeps with the call, from resolve_start to
 * resolve_finish. */
static inline void gql_exec_info_set_trace(const gql_resolve_info *info,
                                           void *data) {
  ((gql_resolve_info *)info)->trace = data;
}
static inline void *gql_exec_info_trace(const gql_resolve_info *info) {
  return info->trace;
}

/* ---- values */
extern const gql_json_value gql_exec_null_value;

#endif
