/*
 * gql — a GraphQL engine in C.
 *
 * The public interface of libgql. Handles are opaque; their layout lives in
 * src/. Every fallible function returns 0 or a negative gql_err code.
 */
#ifndef GQL_H
#define GQL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GQL_VERSION_MAJOR 0
#define GQL_VERSION_MINOR 1
#define GQL_VERSION_PATCH 0
#define GQL_VERSION_STRING "0.1.0"

#if defined(__GNUC__) && !defined(GQL_STATIC)
#define GQL_API __attribute__((visibility("default")))
#else
#define GQL_API
#endif

/* The library's version as "MAJOR.MINOR.PATCH". */
GQL_API const char *gql_version(void);

/* ---------------------------------------------------------------- errors */

/* X(NAME, value, message). One table makes the codes, gql_strerror() and
 * gql_err_name(). Codes are negative; 0 is success. */
#define GQL_ERRNO_MAP(X)                                                       \
  X(NOMEM, -1, "out of memory")                                                \
  X(INVAL, -2, "invalid argument")                                             \
  X(SYNTAX, -3, "syntax error")                                                \
  X(LIMIT, -4, "limit exceeded")                                               \
  X(IO, -5, "input/output error")                                              \
  X(JSON, -6, "invalid JSON")                                                  \
  X(VALIDATION, -7, "validation failed")                                       \
  X(SCHEMA, -8, "invalid schema")                                              \
  X(NOTFOUND, -9, "not found")                                                 \
  X(UNSUPPORTED, -10, "not supported")                                         \
  X(ABORTED, -11, "aborted")

typedef enum gql_err {
  GQL_OK = 0,
#define GQL_ERR_ENUM_(name, val, msg) GQL_E##name = (val),
  GQL_ERRNO_MAP(GQL_ERR_ENUM_)
#undef GQL_ERR_ENUM_
} gql_err;

/* A message for an error code ("out of memory"); never NULL. */
GQL_API const char *gql_strerror(int err);
/* The code's name ("GQL_ENOMEM"); never NULL. */
GQL_API const char *gql_err_name(int err);

/* ---------------------------------------------------------------- slices */

/* A byte slice. Not NUL-terminated unless stated. */
typedef struct gql_str {
  const char *ptr;
  size_t len;
} gql_str;

/* ------------------------------------------------------------- allocator */

/* A pluggable allocator, after lua_Alloc / yyjson_alc. All three functions
 * are required when an allocator is given; NULL means libc's. */
typedef struct gql_allocator {
  void *(*malloc)(void *ctx, size_t size);
  void *(*realloc)(void *ctx, void *ptr, size_t old_size, size_t new_size);
  void (*free)(void *ctx, void *ptr, size_t size);
  void *ctx;
} gql_allocator;

/* The libc allocator. */
GQL_API const gql_allocator *gql_default_allocator(void);

/* ----------------------------------------------------------------- arena */

/* A bump allocator whose memory is released all at once. One request owns
 * one arena; everything the request makes lives in it. */
typedef struct gql_arena gql_arena;

/* A new arena drawing blocks from `alc` (NULL: libc). NULL on failure. */
GQL_API gql_arena *gql_arena_new(const gql_allocator *alc);
/* Frees the arena and everything allocated in it. NULL is allowed. */
GQL_API void gql_arena_free(gql_arena *arena);
/* Frees everything allocated in the arena but keeps memory for the next use:
 * one block as large as all the arena held, up to 1 MiB. */
GQL_API void gql_arena_reset(gql_arena *arena);
/* `size` bytes aligned to 8 (NULL on failure or when the arena's byte limit
 * would be exceeded). */
GQL_API void *gql_arena_alloc(gql_arena *arena, size_t size);
/* Bytes handed out and bytes held from the allocator. */
GQL_API size_t gql_arena_used(const gql_arena *arena);
GQL_API size_t gql_arena_reserved(const gql_arena *arena);
/* Caps the bytes the arena may reserve (0: no cap). */
GQL_API void gql_arena_set_limit(gql_arena *arena, size_t max_bytes);

/* ---------------------------------------------------------- GraphQL errors */

/* A line and column, both 1-based; the column counts UTF-16 code units as
 * graphql-js does. */
typedef struct gql_location {
  uint32_t line;
  uint32_t column;
} gql_location;

/* A GraphQL error as graphql-js reports it: a message and the places in the
 * source it is about (possibly none). The one error carrier of the API:
 * syntax errors, schema errors, validation errors and invalid variables all
 * come as these, through a gql_errors. */
typedef struct gql_error {
  const char *message;
  gql_location *locations;
  uint32_t nlocations;
} gql_error;

/* Where a call reports GraphQL errors: the caller sets `arena` (NULL: the
 * errors are not kept), and a call that fails with GraphQL errors sets
 * `items` and `count` (count is 0 otherwise), the errors in graphql-js's
 * order with its messages and locations, allocated in `arena`. */
typedef struct gql_errors {
  gql_arena *arena;
  const gql_error *items;
  uint32_t count;
} gql_errors;

/* The GraphQL response of request errors, {"errors":[...]} as graphql-js
 * prints them, each with "extensions":{"code":code} when `code` is not NULL
 * (Apollo Router's codes), NUL-terminated in `arena` (length in
 * json->len). 0 or GQL_ENOMEM. */
GQL_API int gql_errors_response(const gql_errors *errors, const char *code,
                                gql_arena *arena, gql_str *json);

/* -------------------------------------------------------------- language */

/* The line and column of byte `offset` in `source`. */
GQL_API gql_location gql_location_of(const char *source, size_t source_len,
                                     size_t offset);

/* Limits for the parser. Zero in a field means the default. */
typedef struct gql_parse_options {
  uint32_t max_tokens; /* default 100,000 (graphql-js maxTokens) */
  uint32_t max_depth;  /* nesting of selections, values, types; default 256 */
  size_t max_size;     /* bytes of source; default 8 MiB */
} gql_parse_options;

#define GQL_DEFAULT_MAX_TOKENS 100000u
#define GQL_DEFAULT_MAX_DEPTH 256u
#define GQL_DEFAULT_MAX_SIZE ((size_t)8 << 20)

/* What an operation does. */
typedef enum gql_operation_type {
  GQL_OP_QUERY,
  GQL_OP_MUTATION,
  GQL_OP_SUBSCRIPTION
} gql_operation_type;

/* A parsed document; its AST lives in the arena it was parsed into and
 * points into the source text, which must outlive it. */
typedef struct gql_document gql_document;

/* Parses a whole document (executable and type-system definitions). On a
 * syntax error returns GQL_ESYNTAX, on a limit GQL_ELIMIT, each with the one
 * error in *errors (NULL: not kept): graphql-js's "Syntax Error: ..." at
 * the offending character (a limit: at line 1, column 1). */
GQL_API int gql_parse(gql_arena *arena, const char *source, size_t len,
                      const gql_parse_options *options, gql_document **out,
                      gql_errors *errors);

/* Prints the document as graphql-js 16's print() does. The string lives in
 * the arena and is NUL-terminated; its length goes to *len when not NULL. */
GQL_API int gql_print(gql_arena *arena, const gql_document *doc,
                      const char **out, size_t *len);

/* ---------------------------------------------------------------- schema */

/* A schema built from SDL: long-lived, owns its memory (including a copy of
 * the SDL text), immutable once built and safe to share between threads. */
typedef struct gql_schema gql_schema;

/* Builds a schema from SDL as graphql-js 16's buildASTSchema does, after the
 * SDL validation rules (validateSDL) and followed by the type-system checks
 * (validateSchema). `alc` (NULL: libc) provides the schema's memory.
 * On failure returns GQL_ESYNTAX, GQL_ESCHEMA or GQL_ENOMEM, sets *out to
 * NULL and puts the errors (at most 100) in *errors (NULL: not kept). */
GQL_API int gql_schema_from_sdl(const char *sdl, size_t len,
                                const gql_allocator *alc, gql_schema **out,
                                gql_errors *errors);
/* Extends `base` with more SDL as graphql-js's extendSchema does, making a
 * new schema (base is left as it was). Same contract as gql_schema_from_sdl. */
GQL_API int gql_schema_extend(const gql_schema *base, const char *sdl,
                              size_t len, const gql_allocator *alc,
                              gql_schema **out, gql_errors *errors);
/* Frees the schema and everything in it. NULL is allowed. */
GQL_API void gql_schema_free(gql_schema *schema);
/* Number of types (built-ins and introspection types included). */
GQL_API uint32_t gql_schema_type_count(const gql_schema *schema);
/* The index of the named type, or -1 when there is none. */
GQL_API int64_t gql_schema_type_by_name(const gql_schema *schema,
                                        const char *name, size_t len);
/* The name of type `index` (ptr NULL when out of range). */
GQL_API gql_str gql_schema_type_name(const gql_schema *schema, uint32_t index);
/* The index of field `name` of object or interface type `index`, or -1. */
GQL_API int64_t gql_schema_field_index(const gql_schema *schema,
                                       uint32_t type_index, const char *name,
                                       size_t len);
/* Prints the schema as graphql-js 16's printSchema does (no trailing
 * newline). The text lives in `arena`, NUL-terminated; length to *len. */
GQL_API int gql_schema_print(const gql_schema *schema, gql_arena *arena,
                             const char **out, size_t *len);

/* ------------------------------------------------------------- execution */

/* A JSON-like value: variables, coerced arguments, JSON data, the root value
 * of the default resolver. Values live in an arena and are read through the
 * accessors below. */
typedef struct gql_json_value gql_value;

typedef enum gql_value_kind {
  GQL_VALUE_NULL,
  GQL_VALUE_BOOL,
  GQL_VALUE_NUMBER,
  GQL_VALUE_STRING,
  GQL_VALUE_LIST,
  GQL_VALUE_OBJECT
} gql_value_kind;

/* Parses JSON text into a value in `arena` (strings may point into `json`,
 * which must outlive the value). 0, GQL_EJSON, GQL_ELIMIT or GQL_ENOMEM. */
GQL_API int gql_value_parse(gql_arena *arena, const char *json, size_t len,
                            const gql_value **out);
/* The kind of v (NULL reads as null). */
GQL_API gql_value_kind gql_value_kind_of(const gql_value *v);
/* A boolean's value (false for other kinds). */
GQL_API bool gql_value_bool(const gql_value *v);
/* A number's value (0 for other kinds). */
GQL_API double gql_value_number(const gql_value *v);
/* True and *out set when v is an integral number that fits int64. */
GQL_API bool gql_value_int(const gql_value *v, int64_t *out);
/* A string's bytes (empty slice for other kinds). */
GQL_API gql_str gql_value_string(const gql_value *v);
/* Items of a list or members of an object (0 for other kinds). */
GQL_API size_t gql_value_count(const gql_value *v);
/* Item i of a list, or the value of member i of an object; NULL if none. */
GQL_API const gql_value *gql_value_item(const gql_value *v, size_t i);
/* The key of member i of an object (empty slice if none). */
GQL_API gql_str gql_value_key(const gql_value *v, size_t i);
/* The member named `name` of an object (last wins), or NULL. */
GQL_API const gql_value *gql_value_get(const gql_value *v, const char *name,
                                       size_t len);
/* v as JSON text, as JSON.stringify writes it, NUL-terminated in `arena`
 * (length in out->len). 0 or GQL_ENOMEM. */
GQL_API int gql_value_print(gql_arena *arena, const gql_value *v, gql_str *out);

/* What a resolver is told, and where it writes its result. */
typedef struct gql_resolve_info gql_resolve_info;
typedef struct gql_out gql_out;
/* A field whose value comes later (see gql_out_pending). */
typedef struct gql_pending gql_pending;

/* A field resolver: reads `parent` (what the parent field's resolver gave to
 * gql_out_object, or a gql_value for JSON data) and writes one result to
 * `out`. Writing nothing means null. */
typedef void (*gql_resolver_fn)(const gql_resolve_info *info,
                                const void *parent, gql_out *out);
/* Writes item i of a list given to gql_out_list. */
typedef void (*gql_list_item_fn)(const void *list, size_t i, gql_out *out);
/* The concrete object type (an index, see gql_schema_type_by_name) of
 * `value` returned for an abstract type; negative when it cannot tell. */
typedef int64_t (*gql_resolve_type_fn)(const gql_resolve_info *info,
                                       const void *value);

/* The resolver never returns pending and everything it writes is complete. */
#define GQL_RESOLVER_SYNC 1u
/* gql_out_object: resolve the concrete type as for an abstract field. */
#define GQL_TYPE_AUTO UINT32_MAX

/* Sets the resolver of field `type`.`field` (data is given back through
 * gql_info_data). Fails with GQL_ENOTFOUND for an unknown field and
 * GQL_EINVAL once the schema is finalized. */
GQL_API int gql_schema_set_resolver(gql_schema *schema, const char *type,
                                    const char *field, gql_resolver_fn fn,
                                    void *data, unsigned flags);
/* What gql_schema_set_member reads: a member of the parent C struct. */
typedef enum gql_member_kind {
  GQL_MEMBER_INT32 = 1, /* int32_t, as gql_out_int */
  GQL_MEMBER_INT64,     /* int64_t, as gql_out_int (Int's range is checked) */
  GQL_MEMBER_DOUBLE,    /* double, as gql_out_float */
  GQL_MEMBER_BOOL,      /* bool, as gql_out_bool */
  GQL_MEMBER_STR,       /* gql_str, as gql_out_string; ptr NULL: null */
  GQL_MEMBER_CSTR,      /* const char *, NUL-terminated; NULL: null */
  GQL_MEMBER_ENUM_U8    /* uint8_t, as gql_out_enum_index */
} gql_member_kind;

/* Field `type`.`field` is member `kind` at byte `offset` of its parent (the
 * pointer the parent's resolver gave to gql_out_object or
 * gql_out_object_array; a NULL parent gives null). It answers exactly as a
 * synchronous resolver reading the member and calling the gql_out_* named
 * above would (coercion, errors, hooks and tracing included), but with no
 * function call: the executor writes the value straight into the response.
 * The data of gql_info_data is NULL. Fails as gql_schema_set_resolver does,
 * and with GQL_EINVAL for an unknown kind or an offset over UINT32_MAX. */
GQL_API int gql_schema_set_member(gql_schema *schema, const char *type,
                                  const char *field, gql_member_kind kind,
                                  size_t offset);
/* What the items of a list member are (gql_list_member.kind). */
typedef enum gql_list_kind {
  GQL_LIST_OBJECT_PTRS = 1, /* const void *: objects, as gql_out_object_ptrs
                             * (a NULL item is a null item) */
  GQL_LIST_ENUM_U8,         /* uint8_t: enum indices, as
                             * gql_out_enum_indices */
  GQL_LIST_STRUCTS          /* objects `stride` bytes apart, as
                             * gql_out_object_array */
} gql_list_kind;
/* A list held by the parent C struct: its items and their count. */
typedef struct gql_list_member {
  gql_list_kind kind;
  /* The items: false, a pointer member at items_offset (NULL: a null
   * list), as in `const uint8_t *episodes`; true, an array member at
   * items_offset, as in `const void *friends[4]` (never null). */
  bool items_inline;
  size_t items_offset;
  /* The count: an unsigned member of count_size bytes (1, 2, 4 or 8) at
   * count_offset. */
  size_t count_offset;
  uint8_t count_size;
  /* GQL_LIST_STRUCTS: the bytes from one item to the next. */
  size_t stride;
  /* Objects: the items' concrete object type (an index), or GQL_TYPE_AUTO
   * (an object type's own, or per item the abstract type's resolve_type:
   * gql_schema_set_resolve_type; without one, every item is a field error,
   * a C struct having no "__typename" to read). */
  uint32_t type;
} gql_list_member;
/* Field `type`.`field` is list member `m` of its parent: it answers
 * exactly as a synchronous resolver reading the items and the count and
 * calling the gql_out_* named in gql_list_kind would (nulls, errors, hooks,
 * tracing and resolve_type calls included), with no function call for the
 * field. Fails as gql_schema_set_member does, and with GQL_EINVAL when the
 * field's type is not a list of the kind's named type (an enum for
 * GQL_LIST_ENUM_U8, an object, interface or union for objects; lists of
 * lists are not list members), for a count_size other than 1, 2, 4 or 8,
 * an offset or stride over UINT32_MAX, or a `type` that is neither
 * GQL_TYPE_AUTO nor a possible object type of the field's type. */
GQL_API int gql_schema_set_list_member(gql_schema *schema, const char *type,
                                       const char *field,
                                       const gql_list_member *m);
/* Sets how interface or union `type` finds the concrete type of a value
 * (default: the "__typename" property of a JSON object). */
GQL_API int gql_schema_set_resolve_type(gql_schema *schema, const char *type,
                                        gql_resolve_type_fn fn);
/* Proves which types are synchronous (a fixpoint over the type graph) and
 * freezes resolvers. Done by the first gql_prepare when not called. */
GQL_API int gql_schema_finalize(gql_schema *schema);

/* The field's name (as in the schema). */
GQL_API gql_str gql_info_field_name(const gql_resolve_info *info);
/* The index of the object type whose field is being resolved. */
GQL_API uint32_t gql_info_parent_type(const gql_resolve_info *info);
/* The coerced argument `name`, or NULL when it has no value. */
GQL_API const gql_value *gql_arg(const gql_resolve_info *info,
                                 const char *name);
/* All coerced arguments as an object (NULL when the field has none). */
GQL_API const gql_value *gql_info_args(const gql_resolve_info *info);
/* The context pointer of gql_execute_params. */
GQL_API void *gql_info_context(const gql_resolve_info *info);
/* The data pointer given to gql_schema_set_resolver. */
GQL_API void *gql_info_data(const gql_resolve_info *info);
/* The request arena (for values a resolver builds). */
GQL_API gql_arena *gql_info_arena(const gql_resolve_info *info);
/* The response path as JSON ("[\"hero\",\"friends\",0]"), made on demand in
 * the request arena. NULL on allocation failure. */
GQL_API const char *gql_info_path(const gql_resolve_info *info);

/* Adds an error at the field (its locations and path) without changing its
 * value, for resolvers that return partial results. */
GQL_API void gql_info_error(const gql_resolve_info *info, const char *message);

/* Results. Each gql_out takes exactly one write; strings are copied before
 * the call returns. */
GQL_API void gql_out_null(gql_out *out);
GQL_API void gql_out_int(gql_out *out, int64_t v);
GQL_API void gql_out_float(gql_out *out, double v);
GQL_API void gql_out_string(gql_out *out, const char *s, size_t len);
GQL_API void gql_out_bool(gql_out *out, bool v);
/* An enum value by name. */
GQL_API void gql_out_enum(gql_out *out, const char *name, size_t len);
/* The enum value at `index` in the definition order of the field's enum
 * type (what a C enum mirroring the SDL holds): no name lookup. An index
 * out of range, or a field whose type is not an enum, is a field error. */
GQL_API void gql_out_enum_index(gql_out *out, uint32_t index);
/* A JSON value: a custom scalar, or JSON data under which the default
 * resolver reads fields by name. */
GQL_API void gql_out_json(gql_out *out, const gql_value *v);
/* An object; `type` is its concrete object type or GQL_TYPE_AUTO. */
GQL_API void gql_out_object(gql_out *out, const void *obj, uint32_t type);
/* A list of `count` items written by item_fn(list, i, out). */
GQL_API void gql_out_list(gql_out *out, const void *list, size_t count,
                          gql_list_item_fn item_fn);
/* A list of `count` objects at base, base + stride, ... : the same as
 * gql_out_list with an item function calling gql_out_object(item,
 * base + i * stride, type), without a call per item. A NULL base is a
 * null list. */
GQL_API void gql_out_object_array(gql_out *out, const void *base, size_t count,
                                  size_t stride, uint32_t type);
/* A list of `count` objects items[0], items[1], ... (a NULL item is a null
 * item): the same as gql_out_list with an item function calling
 * gql_out_object(item, items[i], type), without a call per item (for an
 * abstract type and GQL_TYPE_AUTO, the type's resolve_type is still called
 * per item). A NULL `items` is a null list. */
GQL_API void gql_out_object_ptrs(gql_out *out, const void *const *items,
                                 size_t count, uint32_t type);
/* A list of `count` enum values given by index (as gql_out_enum_index):
 * the same as gql_out_list with an item function calling
 * gql_out_enum_index(item, indices[i]), without a call per item. A NULL
 * `indices` is a null list. */
GQL_API void gql_out_enum_indices(gql_out *out, const uint8_t *indices,
                                  size_t count);
/* A field error with this message (copied); the field becomes null. */
GQL_API void gql_out_error(gql_out *out, const char *message);
/* The value comes later: returns a handle to complete from the same thread
 * (NULL on allocation failure, then the field errors). */
GQL_API gql_pending *gql_out_pending(gql_out *out);
/* The output of a pending field; writing to it completes the field. */
GQL_API gql_out *gql_pending_out(gql_pending *p);

/* Hooks, all optional: callbacks around an execution and every resolver
 * call, and the context they are given. A hook returning non-zero aborts
 * the request: later resolver calls fail with an abort error.
 * resolve_start fires for every resolver call, also after an abort; an
 * aborted call then gets resolve_finish at once and fails with "Execution
 * aborted.". An abort from execute_start stops the execution before any
 * field: the response is that one error. resolve_finish follows the
 * completion of the field's value (for a pending field, the write to its
 * pending output). execute_error: once per error of the response, in
 * order, just before execute_finish (path as JSON or NULL). prepare_phase:
 * with gql_prepare_options.hooks, around parsing (phase 0) and validation
 * (phase 1): finished false at the start, true at the end with rc and the
 * errors (for a syntax error, the one message). */
typedef struct gql_hooks {
  int (*execute_start)(void *ctx);
  void (*execute_finish)(void *ctx, bool has_errors);
  int (*resolve_start)(void *ctx, const gql_resolve_info *info);
  void (*resolve_finish)(void *ctx, const gql_resolve_info *info);
  void *ctx;
  void (*execute_error)(void *ctx, const char *message,
                        const gql_location *locations, uint32_t nlocations,
                        const char *path_json);
  void (*prepare_phase)(void *ctx, int phase, bool finished, int rc,
                        const gql_error *errors, uint32_t nerrors);
} gql_hooks;

/* A tracer and one traced request (see "tracing" below). */
typedef struct gql_tracer gql_tracer;
typedef struct gql_trace gql_trace;

/* An operation parsed, validated and planned; immutable, reusable. */
typedef struct gql_prepared gql_prepared;

typedef struct gql_prepare_options {
  gql_parse_options parse;
  bool no_validate;         /* skip the validation rules */
  uint32_t max_plan_size;   /* planned fields (0: 100,000) */
  const gql_allocator *alc; /* memory of the prepared operation (NULL: libc) */
  const gql_hooks *hooks;   /* prepare_phase of these is called (NULL: none) */
  gql_trace *trace; /* parse and validate spans of this trace (NULL: none;
                     * not with hooks) */
  /* Working memory of validation and planning during the call (NULL: the
   * prepared operation's own arena). Nothing in it is used after
   * gql_prepare returns: a server may pass a per-thread arena that it
   * resets between requests (or the request arena), so that the prepared
   * operation holds only its text, AST and plan, and a steady state makes
   * no allocator call for that work. */
  gql_arena *scratch;
} gql_prepare_options;

/* Parses `query` (copied), validates it and plans the operation named
 * `operation_name` (NULL: the only one). On a syntax, validation or
 * operation-selection error returns GQL_ESYNTAX / GQL_EVALIDATION /
 * GQL_EINVAL with the errors in *errors (NULL: not kept; the response to
 * send is gql_errors_response's). */
GQL_API int gql_prepare(gql_schema *schema, const char *query, size_t len,
                        const char *operation_name,
                        const gql_prepare_options *options, gql_prepared **out,
                        gql_errors *errors);
GQL_API void gql_prepared_free(gql_prepared *p);
/* The bytes the prepared operation holds (its text, AST and plan): what a
 * cache of prepared operations counts. */
GQL_API size_t gql_prepared_bytes(const gql_prepared *p);
/* The type of the prepared operation (a GET request may only run a query). */
GQL_API gql_operation_type gql_prepared_operation(const gql_prepared *p);
/* Whether the prepared operation may deliver incrementally (its document
 * uses @defer or @stream): gql_execute_incremental's work. */
GQL_API bool gql_prepared_incremental(const gql_prepared *p);
/* The measures Apollo Router's operation limits bound, fragments expanded
 * (each measured once): depth (fields nested; a root leaf is 1), height
 * (fields selected; a name selected twice in one selection set, aliases
 * too, counts once; a fragment's fields once however often spread),
 * aliases (aliased fields), root fields; and whether
 * the operation selects __schema or __type. 0, GQL_EINVAL or GQL_ENOMEM. */
typedef struct gql_operation_shape {
  uint32_t depth, height, aliases, root_fields;
  bool introspection;
} gql_operation_shape;
GQL_API int gql_prepared_shape(const gql_prepared *p, gql_operation_shape *out);
/* Coerces `variables` (an object; NULL: none given) as gql_execute does
 * (graphql-js coerceVariableValues: defaults applied, invalid values
 * refused): 0 and *out, an object in `arena` of the variables that have a
 * value; GQL_EINVAL with the errors in *errors (NULL: not kept), when a
 * value is invalid; GQL_ENOMEM. */
GQL_API int gql_prepared_coerce_variables(const gql_prepared *p,
                                          gql_arena *arena,
                                          const gql_value *variables,
                                          const gql_value **out,
                                          gql_errors *errors);

/* A growable byte buffer on an allocator: where a response goes, reused
 * across executions (its capacity is kept, so a steady state makes no
 * allocator call). Zero-initialise it. */
typedef struct gql_output {
  char *data;
  size_t len;
  size_t cap;
  const gql_allocator *alc; /* NULL: libc */
} gql_output;
/* Room for `extra` more bytes (len unchanged). 0 or GQL_ENOMEM (the
 * buffer is then as it was). */
GQL_API int gql_output_reserve(gql_output *o, size_t extra);
/* Appends n bytes. 0 or GQL_ENOMEM (nothing appended). */
GQL_API int gql_output_append(gql_output *o, const void *p, size_t n);
GQL_API void gql_output_free(gql_output *o);
/* Appends s as a JSON string in quotes, escaped as JSON.stringify does
 * (\" \\ \b \f \n \r \t, other control characters as \u00xx; invalid
 * UTF-8 becomes U+FFFD). 0 or GQL_ENOMEM (nothing appended). */
GQL_API int gql_output_json_string(gql_output *o, const char *s, size_t len);

typedef struct gql_execute_params {
  const gql_value *variables; /* coerced from this, or else from: */
  const char *variables_json; /* JSON text (NULL: none) */
  size_t variables_len;
  const void *root_value; /* parent of the root fields */
  void *context;          /* gql_info_context */
  gql_arena *arena;       /* request memory (NULL: made and freed) */
  gql_output *output;     /* where the response goes (NULL: internal) */
  const gql_hooks *hooks; /* NULL: none */
  gql_trace *trace;       /* the trace of this execution (NULL: none; not
                           * with hooks): gql_trace_begin's */
  /* Called once with the response JSON when the execution completes
   * (possibly before gql_execute returns). The bytes are valid during the
   * call. */
  void (*on_done)(void *ud, const char *json, size_t len, bool has_errors);
  void *ud;
  /* A subscription operation answers the error "Subscriptions are not
   * supported ..." unless this is set; then it runs once, as graphql-js's
   * execute() runs it (no event stream). */
  bool subscription_once;
} gql_execute_params;

/* Runs a prepared operation. Returns 0 (on_done has been called, or, when
 * fields pend, is called when the last completes) or a negative code. Mutation
 * root fields run one after the other, also when they pend. A subscription
 * operation answers an error (see subscription_once). Without params->arena the
 * execution's memory is freed after on_done, so every pending field must be
 * completed. */
GQL_API int gql_execute(const gql_prepared *p,
                        const gql_execute_params *params);

/* Runs a prepared operation with incremental delivery (@defer): on_done
 * is called once per payload, in graphql-js 17's format. An operation that
 * defers nothing (or whose deferred fragments were all nulled or already
 * sent) gets one call with the plain result, as gql_execute gives it;
 * otherwise the first call is the initial result with "pending" and
 * "hasNext":true, and each later one a payload {"hasNext", "pending",
 * "incremental", "completed"}; the call whose payload has "hasNext":false
 * is the last. has_errors tells whether the payload carries errors. A
 * deferred fragment runs after the payload that announces it, over the
 * parent objects of the initial result: those must stay valid until the
 * last payload (JSON data, the arena). Returns 0 when every payload was
 * delivered and nothing pends, 1 when fields still pend (more payloads, or
 * only the completion of fields whose fragment already failed), or a
 * negative code. Without params->arena the memory is freed after the last
 * payload. gql_execute runs the same operation with the deferred fields in
 * place. params->trace (and hooks) see every payload's resolvers; the
 * execute span (execute_finish) ends after the last payload is handed to
 * on_done. */
GQL_API int gql_execute_incremental(const gql_prepared *p,
                                    const gql_execute_params *params);

/* Prepare + execute in one go, as graphql-js's graphql(): a subscription
 * operation runs once over the root value. The response JSON goes to *json
 * (in `arena`, NUL-terminated). Returns 0, 1 when it has errors, or a
 * negative code (GQL_EUNSUPPORTED when a field pends). */
GQL_API int gql_graphql(gql_schema *schema, const char *query, size_t len,
                        const char *operation_name, const char *variables_json,
                        size_t variables_len, const void *root_value,
                        void *context, gql_arena *arena, gql_str *json);

/* ---------------------------------------------------------- subscriptions */

/* A subscription operation runs as the spec's Subscribe: the root field's
 * resolver runs once (CreateSourceEventStream) and answers with an event
 * stream (gql_out_stream); then every event pushed into the stream becomes
 * the root field's value, completed through the operation's selection set
 * as the default resolver completes JSON data (MapSourceToResponseEvent):
 * one response per event. An error in one event's fields is that
 * response's error; the stream goes on. Everything happens on the thread
 * that subscribed. */
typedef struct gql_subscription gql_subscription;
/* The event source side of a subscription: what the root field's resolver
 * gets from gql_out_stream and the embedder pushes into. */
typedef struct gql_stream gql_stream;

typedef struct gql_stream_source {
  /* The subscriber went away (gql_subscription_free, or the queue
   * overflowed with GQL_OVERFLOW_CLOSE): push nothing more into the
   * stream, whose handle is invalid after this call. Optional. */
  void (*cancel)(void *ud);
  void *ud;
} gql_stream_source;

/* From a subscription root field's resolver (subscribe phase): the field's
 * source event stream. NULL (and the field null) outside a subscription
 * being made, e.g. under gql_graphql, which runs a subscription once. A
 * resolver that neither calls this nor writes an error makes the
 * subscription fail as graphql-js does ("Subscription field must return
 * AsyncIterable."). `source` is copied. */
GQL_API gql_stream *gql_out_stream(gql_out *out,
                                   const gql_stream_source *source);
/* One event: a JSON value (copied when it has to wait in the queue). 0;
 * GQL_EINVAL once the stream ended; GQL_ELIMIT when the queue was full
 * (the oldest event was dropped, or the subscription closed, per its
 * overflow policy); GQL_ENOMEM. */
GQL_API int gql_stream_push(gql_stream *s, const gql_value *event);
/* The same from JSON text (GQL_EJSON when it is not JSON). */
GQL_API int gql_stream_push_json(gql_stream *s, const char *json, size_t len);
/* The stream is over: queued events are delivered, then on_end (no
 * error). The source ended by itself: cancel is not called, and the
 * handle may be gone after this call (push nothing more). */
GQL_API void gql_stream_end(gql_stream *s);
/* The stream failed: queued events are dropped and on_end reports
 * `message` as a GraphQL error. As after gql_stream_end: no cancel, the
 * handle may be gone. */
GQL_API void gql_stream_fail(gql_stream *s, const char *message);

/* What a subscriber does when events come faster than it takes them (it
 * is paused, or an event's execution is pending). */
typedef enum gql_overflow {
  GQL_OVERFLOW_DROP_OLDEST, /* the default: counted in dropped */
  GQL_OVERFLOW_CLOSE        /* end the subscription with an error */
} gql_overflow;

typedef struct gql_subscribe_params {
  const gql_value *variables; /* as gql_execute_params */
  const char *variables_json;
  size_t variables_len;
  const void *root_value; /* the parent of the root field at subscribe */
  void *context;          /* gql_info_context, at subscribe and per event */
  /* One response per event ({"data":...} with any errors). Required. */
  void (*on_event)(void *ud, const char *json, size_t len, bool has_errors);
  /* The stream ended (errors_json NULL) or failed (a JSON array of
   * GraphQL errors). Then nothing more comes; free the subscription. */
  void (*on_end)(void *ud, const char *errors_json, size_t len);
  void *ud;
  uint32_t max_queue; /* events waiting per subscriber (0: 64) */
  gql_overflow overflow;
  /* Each event's execution is traced on this tracer (NULL: none): a trace
   * per event, with its execute span (named "subscription") and resolve
   * spans, queued once the event's response is delivered (an execution
   * that pended: at the next event, or when the subscription is freed).
   * Both must outlive the subscription. */
  gql_tracer *tracer;
  const struct gql_trace_options *trace_options; /* NULL: the defaults */
} gql_subscribe_params;

/* Subscribes: runs the root field's resolver. 0 and *out when the stream
 * is open; 1 when the subscription could not start (variables invalid,
 * the resolver failed, no stream): the response with the errors went to
 * on_event once, *out is NULL and on_end does not come; GQL_EINVAL when
 * `p` is not a subscription; GQL_ENOMEM. A resolver that pends at
 * subscribe is refused (GQL_EUNSUPPORTED). */
GQL_API int gql_subscribe(const gql_prepared *p,
                          const gql_subscribe_params *params,
                          gql_subscription **out);
/* The subscriber goes away: the source's cancel is called (unless the
 * stream already ended), queued events are dropped. NULL is allowed. */
GQL_API void gql_subscription_free(gql_subscription *sub);
/* Flow control: while paused, events wait in the queue (bounded: see
 * max_queue); resume delivers them in order. */
GQL_API void gql_subscription_pause(gql_subscription *sub);
GQL_API void gql_subscription_resume(gql_subscription *sub);
/* Events dropped by GQL_OVERFLOW_DROP_OLDEST so far. */
GQL_API uint64_t gql_subscription_dropped(const gql_subscription *sub);

/* --------------------------------------------------------------- tracing */

/* A tracer owns a bounded span queue and a background exporter thread that
 * sends the spans in OTLP/HTTP JSON batches through a transport. A trace
 * (gql_trace) follows one request: parse, validate and execute spans plus
 * one graphql.resolve span per (collapsed) field path. */
/* Sends one batch (an ExportTraceServiceRequest, in the tracer's
 * protocol); 0 on success. Runs on the exporter thread. */
typedef int (*gql_trace_transport_fn)(void *ud, const char *json, size_t len);

/* The OTLP/HTTP encoding: JSON (Content-Type application/json) or binary
 * protobuf (application/x-protobuf, the collectors' default). */
typedef enum gql_otlp_protocol {
  GQL_OTLP_HTTP_JSON,
  GQL_OTLP_HTTP_PROTOBUF
} gql_otlp_protocol;

typedef struct gql_tracer_config {
  const char *service_name;         /* resource service.name (NULL: "gql") */
  uint32_t queue_spans;             /* queue bound (0: 2048); beyond: dropped */
  uint32_t batch_spans;             /* spans per batch (0: 512) */
  uint32_t interval_ms;             /* export period (0: 5000) */
  gql_trace_transport_fn transport; /* NULL: spans are counted, not sent */
  void *transport_ud;
  bool no_thread; /* no exporter thread: only gql_tracer_flush exports */
  /* gql_tracer_flush (and so gql_tracer_free) waits at most this long
   * (0: 30,000); what gql_tracer_free finds still queued is dropped. */
  uint32_t flush_timeout_ms;
  gql_otlp_protocol protocol; /* how batches are encoded (0: JSON) */
} gql_tracer_config;

typedef struct gql_tracer_stats {
  uint64_t queued;   /* spans accepted into the queue */
  uint64_t exported; /* spans sent in batches the transport accepted */
  uint64_t dropped;  /* spans dropped: queue full or no memory */
  uint64_t failed;   /* spans in batches the transport refused */
  uint64_t pending;  /* spans queued or being sent now */
} gql_tracer_stats;

GQL_API int gql_tracer_new(const gql_tracer_config *config, gql_tracer **out);
/* Exports everything queued before the call, then returns (graceful
 * shutdown, tests); gives up after config.flush_timeout_ms (an unreachable
 * collector). Safe from several threads at once. */
GQL_API void gql_tracer_flush(gql_tracer *t);
/* Flushes (unless the last flush timed out and nothing was exported
 * since), stops the exporter thread, frees. NULL is allowed. */
GQL_API void gql_tracer_free(gql_tracer *t);
GQL_API void gql_tracer_stats_get(gql_tracer *t, gql_tracer_stats *out);

/* The file transport: ud is a FILE *; one batch per line, flushed. */
GQL_API int gql_trace_file_transport(void *ud, const char *json, size_t len);
/* A blocking HTTP/1.1 POST over a plain socket (no TLS). */
typedef struct gql_trace_http {
  char host[256];
  char port[8];
  char path[512];
  uint32_t timeout_ms;        /* 0: 10,000 */
  uint32_t retries;           /* on 429/502/503/504 or no response (0: none) */
  gql_otlp_protocol protocol; /* the Content-Type sent (the tracer's) */
} gql_trace_http;
/* Reads "http://host[:port][/path]" (default port 4318, path /v1/traces).
 * GQL_EINVAL for anything else (https included). */
GQL_API int gql_trace_http_init(gql_trace_http *h, const char *url);
/* From the OpenTelemetry SDK variables: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
 * (the full URL), else OTEL_EXPORTER_OTLP_ENDPOINT + "/v1/traces", else
 * http://localhost:4318/v1/traces; OTEL_EXPORTER_OTLP_TIMEOUT (ms). */
GQL_API int gql_trace_http_from_env(gql_trace_http *h);
/* ud is a gql_trace_http *. */
GQL_API int gql_trace_http_transport(void *ud, const char *json, size_t len);

/* Observers of a traced request (dd-trace's channels). Any callback may call
 * gql_trace_abort; execute_start and resolve_start abort by returning
 * non-zero. resolve_start and resolve_update fire for every resolver call
 * (collapsed duplicates and depth-gated fields too); resolve_finish once per
 * span at the end of the execution, before execute_finish. */
typedef struct gql_trace_subscriber {
  int (*execute_start)(void *ud, gql_trace *tr);
  void (*execute_finish)(void *ud, gql_trace *tr, bool has_errors);
  int (*resolve_start)(void *ud, gql_trace *tr, const gql_resolve_info *info);
  void (*resolve_update)(void *ud, gql_trace *tr, const gql_resolve_info *info,
                         const char *error);
  void (*resolve_finish)(void *ud, gql_trace *tr, const char *path,
                         const char *error);
  void *ud;
} gql_trace_subscriber;

typedef struct gql_trace_options {
  bool no_collapse;  /* one span per list item */
  int32_t depth;     /* named fields deep; < 0 unlimited, 0 no resolve spans */
  bool source;       /* graphql.source / graphql.document tags */
  bool no_signature; /* resource "<type> <name>" instead of the signature */
  const char *const *variables; /* names tagged graphql.variables.<name> */
  uint32_t nvariables;
  const gql_trace_subscriber *subscriber;
} gql_trace_options;

/* Defaults: collapse on, depth -1, no source, signature, no variables. */
GQL_API void gql_trace_options_init(gql_trace_options *o);

/* Starts tracing one request (t NULL: subscribers only, nothing exported).
 * Give it to gql_prepare_options.trace (parse and validate spans) and to
 * gql_execute_params.trace; call gql_trace_set_operation before gql_execute
 * and gql_trace_end once the response is delivered (or preparing failed).
 * NULL on allocation failure. */
GQL_API gql_trace *gql_trace_begin(gql_tracer *t, const gql_trace_options *o);
/* The operation about to run, and the caller's raw variables (JSON).
 * Needed before gql_execute for resolve spans and the execute span's tags. */
GQL_API void gql_trace_set_operation(gql_trace *tr, const gql_prepared *p,
                                     const char *variables_json, size_t len);
GQL_API void gql_trace_abort(gql_trace *tr);
/* Queues the spans not yet queued and frees the trace. NULL is allowed. */
GQL_API void gql_trace_end(gql_trace *tr);

/* W3C Trace Context (https://www.w3.org/TR/trace-context/): the
 * traceparent and tracestate headers read and written as pure functions,
 * and a trace continued from them. The HTTP server reads them from a
 * request; the gateway sends them to its subgraphs with its own span as
 * the parent. */
enum {
  GQL_TRACEPARENT_LEN = 55, /* "00-" 32 hex "-" 16 hex "-" 2 hex */
  GQL_TRACESTATE_MAX = 512, /* what is propagated at most */
  GQL_TRACESTATE_MEMBERS = 32
};

typedef struct gql_trace_context {
  uint64_t trace_hi, trace_lo; /* the trace id, never all zero */
  uint64_t parent_id;          /* the caller's span id, never zero */
  uint8_t flags;               /* trace-flags; bit 0: sampled */
  /* tracestate, checked and in its normal form (no blanks around
   * members, no empty member): pass it on as it is */
  char tracestate[GQL_TRACESTATE_MAX + 1];
  size_t tracestate_len;
} gql_trace_context;

/* Reads a traceparent header value (blanks around it ignored). Version 00
 * must be exactly 55 characters, lowercase hex, with a non-zero trace id
 * and parent id; a later version (not ff) is read by the same fields when
 * it has at least 55 characters and a '-' after the flags if longer (the
 * spec's forward compatibility). 0, or GQL_EINVAL: then the caller starts a
 * new trace and ignores tracestate. Sets everything but tracestate. */
GQL_API int gql_traceparent_parse(const char *s, size_t n,
                                  gql_trace_context *out);

/* The traceparent header for a request made within trace c with span_id
 * as the parent (version 00): 55 characters and a NUL into out. */
GQL_API void gql_traceparent_format(const gql_trace_context *c,
                                    uint64_t span_id,
                                    char out[GQL_TRACEPARENT_LEN + 1]);

/* Reads a tracestate header value (the field's lines joined by ','):
 * list-members "key=value" separated by ',' and optional blanks, empty
 * members skipped; keys per the spec's grammar (simple or tenant@system),
 * unique; values of 1-256 printable characters, no ',' or '=', no
 * trailing space; at most 32 members. Writes the normal form into c
 * (members longer than 128 characters dropped first, then the last ones,
 * while it exceeds 512 characters). 0, or GQL_EINVAL (c->tracestate
 * emptied): the whole header is then dropped, never a part of it. */
GQL_API int gql_tracestate_parse(const char *s, size_t n, gql_trace_context *c);

/* Continues the trace of a traceparent: the trace takes c's trace id and
 * tracestate, and its spans without a parent of their own (parse,
 * validate, execute) get c's parent id as theirs (flagged remote).
 * Call after gql_trace_begin, before gql_trace_end. NULL c: no-op. */
GQL_API void gql_trace_set_parent(gql_trace *tr, const gql_trace_context *c);

/* The trace id of tr as 32 lowercase hex digits and a NUL (the caller's
 * when continued; else drawn now and kept for its spans). NULL tr: "". */
GQL_API void gql_trace_id(gql_trace *tr, char out[33]);

/* Spans of an embedder's own in a trace (the gateway's request, its plan
 * and each subgraph fetch), exported with the trace's other spans. A span
 * starts now, under `parent` (a handle from here; 0: none, so under the
 * caller's traceparent when the trace continues one). Handles are 0 when
 * tr is NULL, already queued or out of memory; every call takes 0 and does
 * nothing. End every span before gql_trace_end (an open one ends then). */
typedef enum gql_trace_span_kind {
  GQL_SPAN_INTERNAL,
  GQL_SPAN_SERVER,
  GQL_SPAN_CLIENT
} gql_trace_span_kind;
GQL_API uint32_t gql_trace_span_start(gql_trace *tr, const char *name,
                                      gql_trace_span_kind kind,
                                      uint32_t parent);
/* A string attribute (key and value copied). */
GQL_API void gql_trace_span_tag(gql_trace *tr, uint32_t span, const char *key,
                                const char *value, size_t len);
/* Marks the span failed with this message (the first one kept). */
GQL_API void gql_trace_span_error(gql_trace *tr, uint32_t span,
                                  const char *message);
GQL_API void gql_trace_span_end(gql_trace *tr, uint32_t span);
/* The traceparent header value naming `span` as the parent, for a request
 * made within it (55 characters and a NUL; "" for handle 0). */
GQL_API void gql_trace_span_traceparent(gql_trace *tr, uint32_t span,
                                        char out[GQL_TRACEPARENT_LEN + 1]);
/* The tracestate of the caller's traceparent, to pass on ("" none). */
GQL_API gql_str gql_trace_tracestate(const gql_trace *tr);

/* The operation signature (dd-trace's resource): literals hidden, aliases
 * dropped, sorted, whitespace squeezed. In `arena`, NUL-terminated. */
GQL_API int gql_trace_signature(gql_arena *arena, const gql_document *doc,
                                const char *operation_name, gql_str *out);

#ifdef __cplusplus
}
#endif

#endif /* GQL_H */
