/*
 * The schema, dense: types live in one array and refer to each other by
 * index (uint32_t). A reference to a type (field type, argument type, ...)
 * is the index of its named type plus a modifier view: a short byte string
 * of 'L' (list) and '!' (non-null) wrappers from the outside in, pointing
 * into schema memory ("" for T, "!" for T!, "L!" for [T!], "!L!" for [T!]!).
 *
 * Names are interned: the schema holds one copy of each name and equal names
 * are the same pointer, so two schema names compare by pointer. All strings
 * are gql_str slices into schema memory (names are NUL-terminated). Absent
 * strings (no description, not deprecated, ...) have ptr == NULL.
 *
 * The schema owns its arena, a copy of every SDL text it was built from and
 * the parsed documents, so `ast` pointers stay valid as long as the schema.
 * Type order is graphql-js 16's schema.getTypeMap() order: defined types in
 * document order, each followed by the built-in scalars it first refers to,
 * then those the directives refer to, then the introspection types. An
 * extended schema keeps its base's order and appends the new types (each
 * followed by the built-in scalars it is first to use), as extendSchema.
 *
 * Errors (gql_error_list, src/core/errors.h) carry graphql-js's messages
 * and locations; the SDL error list's cutoff is the caller's.
 */
#ifndef GQL_SCHEMA_H
#define GQL_SCHEMA_H

#include "../core/core.h"
#include "../core/errors.h"
#include "../language/ast.h"

#define GQL_NO_TYPE UINT32_MAX

typedef enum gql_type_kind {
  GQL_TYPE_SCALAR,
  GQL_TYPE_OBJECT,
  GQL_TYPE_INTERFACE,
  GQL_TYPE_UNION,
  GQL_TYPE_ENUM,
  GQL_TYPE_INPUT_OBJECT,
} gql_type_kind;

/* X(NAME): directive locations in graphql-js DirectiveLocation order. */
#define GQL_DIRECTIVE_LOCATIONS(X)                                             \
  X(QUERY)                                                                     \
  X(MUTATION)                                                                  \
  X(SUBSCRIPTION)                                                              \
  X(FIELD)                                                                     \
  X(FRAGMENT_DEFINITION)                                                       \
  X(FRAGMENT_SPREAD)                                                           \
  X(INLINE_FRAGMENT)                                                           \
  X(VARIABLE_DEFINITION)                                                       \
  X(SCHEMA)                                                                    \
  X(SCALAR)                                                                    \
  X(OBJECT)                                                                    \
  X(FIELD_DEFINITION)                                                          \
  X(ARGUMENT_DEFINITION)                                                       \
  X(INTERFACE)                                                                 \
  X(UNION)                                                                     \
  X(ENUM)                                                                      \
  X(ENUM_VALUE)                                                                \
  X(INPUT_OBJECT)                                                              \
  X(INPUT_FIELD_DEFINITION)                                                    \
  X(DIRECTIVE_DEFINITION)

typedef enum gql_directive_location {
#define GQL_DIRLOC_ENUM_(n) GQL_DIRLOC_##n,
  GQL_DIRECTIVE_LOCATIONS(GQL_DIRLOC_ENUM_)
#undef GQL_DIRLOC_ENUM_
      GQL_DIRLOC_COUNT
} gql_directive_location;

/* A type reference: named type + wrappers (see the top of this file). */
typedef struct gql_type_ref {
  uint32_t type;    /* index of the named type */
  uint32_t nmods;   /* length of mods */
  const char *mods; /* 'L' / '!' from outside in; never NULL */
} gql_type_ref;

/* An argument of a field or directive, or an input field. */
typedef struct gql_input_value {
  gql_str name; /* interned */
  gql_str description;
  gql_type_ref type;
  const gql_ast_value *default_value; /* const literal, or NULL */
  gql_str deprecation_reason;         /* ptr NULL: not deprecated */
  const gql_ast_input_value_def *ast; /* NULL for built-ins made in C */
} gql_input_value;

/* A field of an object or interface type. The resolver slots are left for
 * the execution engine (NULL / false after build). */
typedef struct gql_field {
  gql_str name; /* interned */
  gql_str description;
  gql_type_ref type;
  gql_input_value *args;
  uint32_t nargs;
  gql_str deprecation_reason; /* ptr NULL: not deprecated */
  const gql_ast_field_def *ast;
  void *resolver;
  void *resolver_data;
  bool sync;
} gql_field;

typedef struct gql_enum_value {
  gql_str name; /* interned */
  gql_str description;
  gql_str deprecation_reason;
  const gql_ast_enum_value_def *ast;
} gql_enum_value;

typedef struct gql_type {
  gql_type_kind kind;
  gql_str name; /* interned */
  gql_str description;
  gql_str specified_by_url; /* scalars with @specifiedBy, else ptr NULL */
  bool one_of;              /* input objects with @oneOf */
  bool builtin;             /* a specified scalar or introspection type */
  gql_field *fields;        /* object, interface */
  uint32_t nfields;
  uint32_t *interfaces; /* object, interface: implemented interfaces */
  uint32_t ninterfaces;
  uint32_t *members; /* union */
  uint32_t nmembers;
  gql_enum_value *values; /* enum */
  uint32_t nvalues;
  gql_input_value *input_fields; /* input object */
  uint32_t ninput_fields;
  /* Abstract types: the possible object types, as graphql-js's
   * getPossibleTypes gives them (union: members; interface: implementing
   * objects in type order). Empty for other kinds. */
  uint32_t *possible;
  uint32_t npossible;
  /* Interfaces: the interfaces implementing this one, in type order. */
  uint32_t *implementing_interfaces;
  uint32_t nimplementing_interfaces;
  const gql_ast_type_def *ast; /* definition; NULL for built-ins */
  const gql_ast_type_def **extensions;
  uint32_t nextensions;
  void *exec_data; /* for the execution engine (e.g. is_type_of) */
  bool sync;       /* for the execution engine: proven synchronous */
  /* A hash index over the names of fields / enum values / input fields
   * (whichever the kind has) when there are many; NULL: scan. */
  uint32_t *member_index; /* slots of item index + 1, 0 empty */
  uint32_t member_mask;
} gql_type;

typedef struct gql_directive {
  gql_str name; /* interned, without '@' */
  gql_str description;
  gql_input_value *args;
  uint32_t nargs;
  bool repeatable;
  bool builtin;           /* one of graphql-js's specifiedDirectives */
  uint32_t location_mask; /* bit (1u << gql_directive_location) */
  uint8_t *locations;     /* in declared order (for printing) */
  uint32_t nlocations;
  const gql_ast_directive_def *ast; /* NULL for built-ins */
} gql_directive;

/* One SDL text the schema was built from, and its parsed document. */
typedef struct gql_schema_source {
  gql_str text; /* copy owned by the schema */
  gql_document *doc;
} gql_schema_source;

struct gql_schema {
  gql_arena *arena;
  gql_allocator alc;
  gql_str description;
  gql_type *types;
  uint32_t ntypes;
  gql_directive *directives; /* graphql-js order: defined, then missing
                              * specified ones */
  uint32_t ndirectives;
  uint32_t query; /* root operation types; GQL_NO_TYPE when absent */
  uint32_t mutation;
  uint32_t subscription;
  /* The schema definition and extensions, for locations. */
  const gql_ast_schema_def *ast;
  const gql_ast_schema_def **extensions;
  uint32_t nextensions;
  gql_schema_source *sources;
  uint32_t nsources;
  /* Meta-fields: __schema and __type (on the query type), __typename. */
  gql_field meta_schema;
  gql_field meta_type;
  gql_field meta_typename;
  /* Built-in scalar indices (GQL_NO_TYPE when not in the schema). */
  uint32_t t_string, t_int, t_float, t_boolean, t_id;
  gql_strmap type_map;      /* name → type index */
  gql_strmap directive_map; /* name → directive index */
  gql_strmap names;         /* interned names → index in name_list */
  gql_str *name_list;
  uint32_t nnames, names_cap;
  gql_document *builtin_doc; /* the built-in SDL, parsed */
  /* graphql-js 17's @defer and @stream were added where the SDL does not
   * declare them (gql_schema_build_options.defer_stream); an extension
   * keeps them. */
  bool defer_stream;
  gql_document *defer_stream_doc; /* their SDL, parsed (or NULL) */
};

/* ---- build */

/* Options for gql_schema_build. */
typedef struct gql_schema_build_options {
  const gql_schema *base;    /* extend this schema (NULL: build anew) */
  bool skip_sdl_validation;  /* do not run the SDL rules first */
  bool skip_type_validation; /* do not run validateSchema's checks */
  /* Introspection exactly as the September 2025 spec has it, where
   * graphql-js 16.15 differs: no DIRECTIVE_DEFINITION location (graphql-js
   * has it, also on @deprecated), includeDeprecated: Boolean! = false. */
  bool spec_introspection;
  /* Adds graphql-js 17's @defer(if:, label:) and @stream(if:, label:,
   * initialCount:) (GraphQLDeferDirective, GraphQLStreamDirective) after
   * the other directives, each unless the SDL declares one of that name
   * (then the SDL's is the schema's). Incremental delivery needs them;
   * graphql-js 17 leaves them out of specifiedDirectives too. An extension
   * of a schema built with them has them. */
  bool defer_stream;
} gql_schema_build_options;

/* Builds a schema from SDL text (copied) with `opts` (NULL: defaults);
 * sdl NULL means no text at all (only the base or the built-ins).
 * Syntax, SDL and type-system errors go to `errors`. Returns 0,
 * GQL_ESYNTAX, GQL_ESCHEMA or GQL_ENOMEM; *out is NULL on failure. */
int gql_schema_build(const char *sdl, size_t len, const gql_allocator *alc,
                     const gql_schema_build_options *opts, gql_schema **out,
                     gql_error_list *errors);

/* ---- SDL validation (graphql-js validateSDL) */

/* Runs the SDL rule named `rule` ("UniqueTypeNamesRule", ...; NULL: all,
 * in graphql-js specifiedSDLRules order) on `doc` (parsed from `source`),
 * optionally extending `base`. Errors go to `errors`. Scratch memory comes
 * from base's allocator (libc without a base). Returns 0, GQL_ENOTFOUND for
 * an unknown rule name, or GQL_ENOMEM. */
int gql_sdl_validate(const gql_document *doc, gql_str source,
                     const gql_schema *base, const char *rule,
                     gql_error_list *errors);
/* gql_sdl_validate with scratch memory from `alc` (NULL: libc) and, without
 * `base`, the specified directives from `std` (a schema of the built-ins
 * alone: gql_sdl_validate makes one). */
int gql_sdl_validate_alc(const gql_document *doc, gql_str source,
                         const gql_schema *base, const gql_schema *std,
                         const char *rule, gql_error_list *errors,
                         const gql_allocator *alc);
/* True when `rule` names one of the SDL rules. */
bool gql_sdl_rule_exists(const char *rule);
/* Runs graphql-js validateSchema's type-system checks; errors to `errors`. */
int gql_schema_validate(const gql_schema *schema, gql_error_list *errors);

/* ---- lookups (by name: one hash; everything else by index) */

/* The type with this name, or NULL. */
const gql_type *gql_schema_type(const gql_schema *s, gql_str name);
/* The index of the type with this name, or GQL_NO_TYPE. */
uint32_t gql_schema_type_index(const gql_schema *s, gql_str name);
/* Type `index` (must be < ntypes). */
static inline const gql_type *gql_schema_type_at(const gql_schema *s,
                                                 uint32_t index) {
  return &s->types[index];
}
/* The interned copy of `name` in the schema, or ptr NULL when no schema
 * name equals it (then no type, field, argument, ... has that name). */
gql_str gql_schema_intern_lookup(const gql_schema *s, gql_str name);
/* The directive with this name (without '@'), or NULL. */
const gql_directive *gql_schema_directive(const gql_schema *s, gql_str name);
/* The root type index for an operation type, or GQL_NO_TYPE. */
uint32_t gql_schema_root_type(const gql_schema *s, gql_operation_type op);
/* Field `name` of object/interface `type` (own fields only), or NULL. */
const gql_field *gql_type_field(const gql_type *type, gql_str name);
/* graphql-js getFieldDef: like gql_type_field on `parent` but also finds
 * __schema and __type on the query type and __typename on any object,
 * interface or union. NULL when none. */
const gql_field *gql_schema_field_def(const gql_schema *s, uint32_t parent,
                                      gql_str name);
/* Argument `name` of a field, or NULL. */
const gql_input_value *gql_field_arg(const gql_field *f, gql_str name);
/* Argument `name` of a directive, or NULL. */
const gql_input_value *gql_directive_arg(const gql_directive *d, gql_str name);
/* Input field `name` of an input object type, or NULL. */
const gql_input_value *gql_type_input_field(const gql_type *type, gql_str name);
/* Enum value `name` of an enum type, or NULL. */
const gql_enum_value *gql_type_enum_value(const gql_type *type, gql_str name);
/* True when directive `d` may appear at location `loc`. */
static inline bool gql_directive_allows(const gql_directive *d,
                                        gql_directive_location loc) {
  return (d->location_mask >> loc) & 1u;
}
/* "QUERY", "FIELD_DEFINITION", ... */
const char *gql_directive_location_name(gql_directive_location loc);
/* The location named `name`; false when it is no location. */
bool gql_directive_location_from_name(gql_str name,
                                      gql_directive_location *out);

/* ---- kinds (of named types, by index) */

/* Scalar or enum. */
bool gql_schema_is_leaf(const gql_schema *s, uint32_t t);
/* Object, interface or union. */
bool gql_schema_is_composite(const gql_schema *s, uint32_t t);
/* Interface or union. */
bool gql_schema_is_abstract(const gql_schema *s, uint32_t t);
/* Scalar, enum or input object (graphql-js isInputType of the named type). */
bool gql_schema_is_input(const gql_schema *s, uint32_t t);
/* Anything but an input object (graphql-js isOutputType). */
bool gql_schema_is_output(const gql_schema *s, uint32_t t);
/* "SCALAR", "OBJECT", ... as __TypeKind spells it. */
const char *gql_type_kind_name(gql_type_kind k);

/* ---- type references */

/* True for T!. */
static inline bool gql_type_ref_is_non_null(gql_type_ref r) {
  return r.nmods && r.mods[0] == '!';
}
/* True for [T] (a nullable list; [T]! is non-null). */
static inline bool gql_type_ref_is_list(gql_type_ref r) {
  return r.nmods && r.mods[0] == 'L';
}
/* True for a bare named type. */
static inline bool gql_type_ref_is_named(gql_type_ref r) {
  return r.nmods == 0;
}
/* The type inside the outermost wrapper: T! → T, [T] → T (r must wrap). */
static inline gql_type_ref gql_type_ref_unwrap(gql_type_ref r) {
  assert(r.nmods > 0);
  return (gql_type_ref){r.type, r.nmods - 1, r.mods + 1};
}
/* T! → T; other references as they are (graphql-js getNullableType). */
static inline gql_type_ref gql_type_ref_nullable(gql_type_ref r) {
  return gql_type_ref_is_non_null(r) ? gql_type_ref_unwrap(r) : r;
}
/* A bare reference to named type t. */
static inline gql_type_ref gql_type_ref_named(uint32_t t) {
  return (gql_type_ref){t, 0, ""};
}
/* Same named type and same wrappers (graphql-js isEqualType). */
static inline bool gql_type_ref_equal(gql_type_ref a, gql_type_ref b) {
  return a.type == b.type && a.nmods == b.nmods &&
         memcmp(a.mods, b.mods, a.nmods) == 0;
}
/* Appends the reference as GraphQL writes it ("[Int!]!"). */
void gql_type_ref_print(const gql_schema *s, gql_type_ref r, gql_buf *out);
/* The reference as a string in `arena` ("[Int!]!"); NULL on failure. */
const char *gql_type_ref_str(const gql_schema *s, gql_type_ref r,
                             gql_arena *arena);
/* The reference for an AST type (from a query: variable definitions). The
 * modifier string is made in `arena`. Returns false when the named type is
 * not in the schema (out->type is then GQL_NO_TYPE) or on allocation
 * failure (out->mods NULL). */
bool gql_schema_type_ref_from_ast(const gql_schema *s, const gql_ast_type *t,
                                  gql_arena *arena, gql_type_ref *out);

/* ---- subtyping (graphql-js typeComparators and schema helpers) */

/* graphql-js schema.isPossibleType: object `obj` is a possible type of
 * abstract type `abstract`. */
bool gql_schema_is_possible_type(const gql_schema *s, uint32_t abstract,
                                 uint32_t obj);
/* graphql-js schema.isSubType: `maybe_sub` (object or interface) is a
 * possible type of / implements abstract type `abstract`. */
bool gql_schema_is_sub_type(const gql_schema *s, uint32_t abstract,
                            uint32_t maybe_sub);
/* graphql-js isTypeSubTypeOf: `sub` may be used where `super` is expected
 * (covariant output types, nullability, lists). */
bool gql_schema_is_type_sub_type_of(const gql_schema *s, gql_type_ref sub,
                                    gql_type_ref super);
/* graphql-js doTypesOverlap on named composite types a and b. */
bool gql_schema_do_types_overlap(const gql_schema *s, uint32_t a, uint32_t b);

/* ---- printing */

/* graphql-js printSchema into `out` (no trailing newline). */
void gql_schema_print_sdl(const gql_schema *s, gql_buf *out);
/* Appends the default value `v` of an input of type `t` as graphql-js
 * prints it, print(astFromValue(valueFromAST(v, t), t)) — printSchema and
 * __InputValue.defaultValue. Returns false (appending nothing) when
 * graphql-js would give no default (the literal does not coerce). */
bool gql_schema_print_default(const gql_schema *s, gql_type_ref t,
                              const gql_ast_value *v, gql_buf *out);

/* ---- "Did you mean" hints (shared with document validation) */

/* graphql-js naturalCompare: digit runs compare as numbers. */
int gql_natural_compare(gql_str a, gql_str b);

/* graphql-js suggestionList: the options within lexical distance of input,
 * best first; up to `max` written to out; returns the count. */
uint32_t gql_suggestion_list(gql_str input, const gql_str *options,
                             uint32_t noptions, gql_str *out, uint32_t max,
                             gql_arena *scratch);
/* graphql-js didYouMean: nothing, or " Did you mean [SUB ]\"a\", \"b\", or
 * \"c\"?" (names quoted; at most 5) appended to out. `sub` may be NULL. */
void gql_did_you_mean(gql_buf *out, const char *sub, const gql_str *names,
                      uint32_t n);

/* ---- locations of schema nodes (for type-system errors) */

/* The source text a node of the schema's documents lies in, found by a
 * pointer into that text (a name's ptr). Empty slice when not found. */
gql_str gql_schema_source_of(const gql_schema *s, const char *ptr);

#endif
