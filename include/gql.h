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

/* -------------------------------------------------------------- language */

/* A line and column, both 1-based; the column counts UTF-16 code units as
 * graphql-js does. */
typedef struct gql_location {
  uint32_t line;
  uint32_t column;
} gql_location;

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

/* A syntax error, as graphql-js reports it: "Syntax Error: ..." with the
 * position of the offending character. The message lives in the arena. */
typedef struct gql_syntax_error {
  const char *message;
  size_t offset;
  gql_location location;
} gql_syntax_error;

/* A parsed document; its AST lives in the arena it was parsed into and
 * points into the source text, which must outlive it. */
typedef struct gql_document gql_document;

/* Parses a whole document (executable and type-system definitions). On a
 * syntax error returns GQL_ESYNTAX and fills *err; on a limit, GQL_ELIMIT
 * with *err filled as well. */
GQL_API int gql_parse(gql_arena *arena, const char *source, size_t len,
                      const gql_parse_options *options, gql_document **out,
                      gql_syntax_error *err);

/* Prints the document as graphql-js 16's print() does. The string lives in
 * the arena and is NUL-terminated; its length goes to *len when not NULL. */
GQL_API int gql_print(gql_arena *arena, const gql_document *doc,
                      const char **out, size_t *len);

/* ---------------------------------------------------------------- schema */

/* A GraphQL error as graphql-js reports it: a message and the places in the
 * source it is about (possibly none). Strings live in the arena given by the
 * caller of the function that produced it. */
typedef struct gql_error {
  const char *message;
  gql_location *locations;
  uint32_t nlocations;
} gql_error;

/* A schema built from SDL: long-lived, owns its memory (including a copy of
 * the SDL text), immutable once built and safe to share between threads. */
typedef struct gql_schema gql_schema;

/* Builds a schema from SDL as graphql-js 16's buildASTSchema does, after the
 * SDL validation rules (validateSDL) and followed by the type-system checks
 * (validateSchema). `alc` (NULL: libc) provides the schema's memory.
 * On failure returns GQL_ESYNTAX, GQL_ESCHEMA or GQL_ENOMEM, sets *out to
 * NULL and, when `err_arena` is not NULL, points *errors at the errors
 * (allocated in err_arena; *nerrors of them). */
GQL_API int gql_schema_from_sdl(const char *sdl, size_t len,
                                const gql_allocator *alc, gql_schema **out,
                                gql_arena *err_arena, const gql_error **errors,
                                uint32_t *nerrors);
/* Extends `base` with more SDL as graphql-js's extendSchema does, making a
 * new schema (base is left as it was). Same contract as gql_schema_from_sdl. */
GQL_API int gql_schema_extend(const gql_schema *base, const char *sdl,
                              size_t len, const gql_allocator *alc,
                              gql_schema **out, gql_arena *err_arena,
                              const gql_error **errors, uint32_t *nerrors);
/* Frees the schema and everything in it. NULL is allowed. */
GQL_API void gql_schema_free(gql_schema *schema);
/* Number of types (built-ins and introspection types included). */
GQL_API uint32_t gql_schema_type_count(const gql_schema *schema);
/* The index of the named type, or -1 when there is none. */
GQL_API int64_t gql_schema_type_by_name(const gql_schema *schema,
                                        const char *name, size_t len);
/* The name of type `index` (NULL when out of range). */
GQL_API gql_str gql_schema_type_name(const gql_schema *schema, uint32_t index);
/* The index of field `name` of object or interface type `index`, or -1. */
GQL_API int64_t gql_schema_field_index(const gql_schema *schema,
                                       uint32_t type_index, const char *name,
                                       size_t len);
/* Prints the schema as graphql-js 16's printSchema does (no trailing
 * newline). The text lives in `arena`, NUL-terminated; length to *len. */
GQL_API int gql_schema_print(const gql_schema *schema, gql_arena *arena,
                             const char **out, size_t *len);

#ifdef __cplusplus
}
#endif

#endif /* GQL_H */
