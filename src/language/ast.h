/*
 * The GraphQL AST. Nodes live in the request arena and point into the source
 * text: names, numbers and enum values are slices of the source; string
 * values are slices of the source when they had no escapes, else decoded
 * copies in the arena. Every node carries its byte span [start, end); line
 * and column are computed from an offset only when someone asks.
 */
#ifndef GQL_AST_H
#define GQL_AST_H

#include "../core/core.h"

/* X(ENUM_SUFFIX, graphql-js Kind name). The one list of node kinds. */
#define GQL_AST_KINDS(X)                                                       \
  X(DOCUMENT, Document)                                                        \
  X(OPERATION_DEFINITION, OperationDefinition)                                 \
  X(VARIABLE_DEFINITION, VariableDefinition)                                   \
  X(SELECTION_SET, SelectionSet)                                               \
  X(FIELD, Field)                                                              \
  X(ARGUMENT, Argument)                                                        \
  X(FRAGMENT_SPREAD, FragmentSpread)                                           \
  X(INLINE_FRAGMENT, InlineFragment)                                           \
  X(FRAGMENT_DEFINITION, FragmentDefinition)                                   \
  X(VARIABLE, Variable)                                                        \
  X(INT_VALUE, IntValue)                                                       \
  X(FLOAT_VALUE, FloatValue)                                                   \
  X(STRING_VALUE, StringValue)                                                 \
  X(BOOLEAN_VALUE, BooleanValue)                                               \
  X(NULL_VALUE, NullValue)                                                     \
  X(ENUM_VALUE, EnumValue)                                                     \
  X(LIST_VALUE, ListValue)                                                     \
  X(OBJECT_VALUE, ObjectValue)                                                 \
  X(OBJECT_FIELD, ObjectField)                                                 \
  X(DIRECTIVE, Directive)                                                      \
  X(NAMED_TYPE, NamedType)                                                     \
  X(LIST_TYPE, ListType)                                                       \
  X(NON_NULL_TYPE, NonNullType)                                                \
  X(SCHEMA_DEFINITION, SchemaDefinition)                                       \
  X(OPERATION_TYPE_DEFINITION, OperationTypeDefinition)                        \
  X(SCALAR_TYPE_DEFINITION, ScalarTypeDefinition)                              \
  X(OBJECT_TYPE_DEFINITION, ObjectTypeDefinition)                              \
  X(FIELD_DEFINITION, FieldDefinition)                                         \
  X(INPUT_VALUE_DEFINITION, InputValueDefinition)                              \
  X(INTERFACE_TYPE_DEFINITION, InterfaceTypeDefinition)                        \
  X(UNION_TYPE_DEFINITION, UnionTypeDefinition)                                \
  X(ENUM_TYPE_DEFINITION, EnumTypeDefinition)                                  \
  X(ENUM_VALUE_DEFINITION, EnumValueDefinition)                                \
  X(INPUT_OBJECT_TYPE_DEFINITION, InputObjectTypeDefinition)                   \
  X(DIRECTIVE_DEFINITION, DirectiveDefinition)                                 \
  X(SCHEMA_EXTENSION, SchemaExtension)                                         \
  X(SCALAR_TYPE_EXTENSION, ScalarTypeExtension)                                \
  X(OBJECT_TYPE_EXTENSION, ObjectTypeExtension)                                \
  X(INTERFACE_TYPE_EXTENSION, InterfaceTypeExtension)                          \
  X(UNION_TYPE_EXTENSION, UnionTypeExtension)                                  \
  X(ENUM_TYPE_EXTENSION, EnumTypeExtension)                                    \
  X(INPUT_OBJECT_TYPE_EXTENSION, InputObjectTypeExtension)                     \
  X(SCHEMA_COORDINATE, SchemaCoordinate)

typedef enum gql_ast_kind {
#define GQL_AST_KIND_ENUM_(e, n) GQL_AST_##e,
  GQL_AST_KINDS(GQL_AST_KIND_ENUM_)
#undef GQL_AST_KIND_ENUM_
      GQL_AST_KIND_COUNT
} gql_ast_kind;

/* "Field", "ObjectTypeDefinition", ... */
const char *gql_ast_kind_name(gql_ast_kind kind);

/* The header every node starts with. */
typedef struct gql_ast_node {
  uint8_t kind;   /* gql_ast_kind */
  uint32_t start; /* byte offset of the node's first token */
  uint32_t end;   /* byte offset just past its last token */
} gql_ast_node;

/* A name: a slice of the source and the offset of its token. An absent name
 * has ptr == NULL and len == 0. */
typedef struct gql_ast_name {
  const char *ptr;
  uint32_t len;
  uint32_t start;
} gql_ast_name;

static inline gql_str gql_ast_name_str(gql_ast_name n) {
  return (gql_str){n.ptr, n.len};
}

/* Arrays of node pointers (items[0..count)). Empty arrays have count 0 and
 * may have items == NULL. */
#define GQL_AST_ARRAY(T)                                                       \
  struct {                                                                     \
    T **items;                                                                 \
    uint32_t count;                                                            \
  }

struct gql_ast_value;
struct gql_ast_directive;
struct gql_ast_selection_set;

/* NamedType (name), ListType and NonNullType (of). */
typedef struct gql_ast_type {
  gql_ast_node h;
  gql_ast_name name;       /* NAMED_TYPE */
  struct gql_ast_type *of; /* LIST_TYPE, NON_NULL_TYPE */
} gql_ast_type;

/* ObjectField of an ObjectValue, and Argument: a name and a value. */
typedef struct gql_ast_argument {
  gql_ast_node h; /* ARGUMENT or OBJECT_FIELD */
  gql_ast_name name;
  struct gql_ast_value *value;
} gql_ast_argument;

typedef GQL_AST_ARRAY(gql_ast_argument) gql_ast_arguments;
typedef GQL_AST_ARRAY(struct gql_ast_directive) gql_ast_directives;

/* Every value literal. h.kind tells which member is meaningful:
 *  INT_VALUE, FLOAT_VALUE, ENUM_VALUE: raw (the token text)
 *  STRING_VALUE: string.value (decoded) and string.block
 *  BOOLEAN_VALUE: boolean
 *  NULL_VALUE: nothing
 *  VARIABLE: name (without '$'; h.start is the '$')
 *  LIST_VALUE: list
 *  OBJECT_VALUE: fields (OBJECT_FIELD nodes) */
typedef struct gql_ast_value {
  gql_ast_node h;
  union {
    gql_str raw;
    struct {
      gql_str value;
      bool block;
    } string;
    bool boolean;
    gql_ast_name name;
    GQL_AST_ARRAY(struct gql_ast_value) list;
    gql_ast_arguments fields;
  } u;
} gql_ast_value;

typedef struct gql_ast_directive {
  gql_ast_node h; /* DIRECTIVE; h.start is the '@' */
  gql_ast_name name;
  gql_ast_arguments args;
} gql_ast_directive;

/* Field, FragmentSpread and InlineFragment share one struct; h.kind tells
 * which members apply:
 *  FIELD: alias (may be absent), name, args, directives, selection_set
 *         (NULL for a leaf)
 *  FRAGMENT_SPREAD: name, directives
 *  INLINE_FRAGMENT: type_condition (NULL when absent), directives,
 *         selection_set */
typedef struct gql_ast_selection {
  gql_ast_node h;
  gql_ast_name alias;
  gql_ast_name name;
  gql_ast_arguments args;
  gql_ast_directives directives;
  gql_ast_type *type_condition;
  struct gql_ast_selection_set *selection_set;
} gql_ast_selection;

typedef struct gql_ast_selection_set {
  gql_ast_node h; /* SELECTION_SET; h.start is the '{' */
  GQL_AST_ARRAY(gql_ast_selection) selections;
} gql_ast_selection_set;

typedef struct gql_ast_variable_definition {
  gql_ast_node h;             /* VARIABLE_DEFINITION */
  gql_ast_value *description; /* STRING_VALUE or NULL */
  gql_ast_value *variable;    /* VARIABLE */
  gql_ast_type *type;
  gql_ast_value *default_value; /* or NULL */
  gql_ast_directives directives;
} gql_ast_variable_definition;

typedef GQL_AST_ARRAY(gql_ast_variable_definition) gql_ast_variable_definitions;

/* OperationDefinition. The shorthand `{ ... }` is a query with no name, no
 * variables and no directives (shorthand is true). */
typedef struct gql_ast_operation {
  gql_ast_node h;
  gql_ast_value *description; /* STRING_VALUE or NULL (Sept 2025) */
  gql_operation_type operation;
  bool shorthand;
  gql_ast_name name;
  gql_ast_variable_definitions variables;
  gql_ast_directives directives;
  gql_ast_selection_set *selection_set;
} gql_ast_operation;

typedef struct gql_ast_fragment {
  gql_ast_node h; /* FRAGMENT_DEFINITION */
  gql_ast_value *description;
  gql_ast_name name;
  gql_ast_type *type_condition; /* NAMED_TYPE */
  gql_ast_directives directives;
  gql_ast_selection_set *selection_set;
} gql_ast_fragment;

/* ---- type system */

typedef struct gql_ast_input_value_def {
  gql_ast_node h; /* INPUT_VALUE_DEFINITION */
  gql_ast_value *description;
  gql_ast_name name;
  gql_ast_type *type;
  gql_ast_value *default_value;
  gql_ast_directives directives;
} gql_ast_input_value_def;

typedef GQL_AST_ARRAY(gql_ast_input_value_def) gql_ast_input_value_defs;

typedef struct gql_ast_field_def {
  gql_ast_node h; /* FIELD_DEFINITION */
  gql_ast_value *description;
  gql_ast_name name;
  gql_ast_input_value_defs args;
  gql_ast_type *type;
  gql_ast_directives directives;
} gql_ast_field_def;

typedef struct gql_ast_enum_value_def {
  gql_ast_node h; /* ENUM_VALUE_DEFINITION */
  gql_ast_value *description;
  gql_ast_name name;
  gql_ast_directives directives;
} gql_ast_enum_value_def;

/* Every type definition and type extension (SCALAR_TYPE_DEFINITION ..
 * INPUT_OBJECT_TYPE_DEFINITION, SCALAR_TYPE_EXTENSION ..
 * INPUT_OBJECT_TYPE_EXTENSION). Which arrays apply follows from the kind:
 *  object, interface: interfaces, fields
 *  union: members
 *  enum: values
 *  input object: input_fields
 * description is always NULL on extensions. */
typedef struct gql_ast_type_def {
  gql_ast_node h;
  gql_ast_value *description;
  gql_ast_name name;
  GQL_AST_ARRAY(gql_ast_type) interfaces; /* NAMED_TYPE */
  gql_ast_directives directives;
  GQL_AST_ARRAY(gql_ast_field_def) fields;
  GQL_AST_ARRAY(gql_ast_type) members; /* NAMED_TYPE */
  GQL_AST_ARRAY(gql_ast_enum_value_def) values;
  gql_ast_input_value_defs input_fields;
} gql_ast_type_def;

typedef struct gql_ast_operation_type_def {
  gql_ast_node h; /* OPERATION_TYPE_DEFINITION */
  gql_operation_type operation;
  gql_ast_type *type; /* NAMED_TYPE */
} gql_ast_operation_type_def;

/* SchemaDefinition and SchemaExtension. */
typedef struct gql_ast_schema_def {
  gql_ast_node h;
  gql_ast_value *description; /* NULL on extensions */
  gql_ast_directives directives;
  GQL_AST_ARRAY(gql_ast_operation_type_def) operation_types;
} gql_ast_schema_def;

typedef struct gql_ast_directive_def {
  gql_ast_node h; /* DIRECTIVE_DEFINITION */
  gql_ast_value *description;
  gql_ast_name name;
  gql_ast_input_value_defs args;
  bool repeatable;
  GQL_AST_ARRAY(gql_ast_name) locations; /* items point to names */
} gql_ast_directive_def;

/* A schema coordinate (Sept 2025): Type, Type.field, Type.field(arg:),
 * @directive, @directive(arg:). */
typedef struct gql_ast_schema_coordinate {
  gql_ast_node h;        /* SCHEMA_COORDINATE */
  bool directive;        /* starts with '@' */
  gql_ast_name name;     /* type or directive name */
  gql_ast_name member;   /* field, input field or enum value; may be absent */
  gql_ast_name argument; /* may be absent */
} gql_ast_schema_coordinate;

/* The document: definitions of any kind, in source order. Cast each item by
 * its h.kind: gql_ast_operation, gql_ast_fragment, gql_ast_schema_def,
 * gql_ast_type_def, gql_ast_directive_def. */
struct gql_document {
  gql_ast_node h; /* DOCUMENT */
  GQL_AST_ARRAY(gql_ast_node) definitions;
  gql_str source;       /* the text the document was parsed from */
  uint32_t token_count; /* tokens read, for limits and statistics */
};

static inline bool gql_ast_is_type_definition(int kind) {
  return kind >= GQL_AST_SCALAR_TYPE_DEFINITION &&
         kind <= GQL_AST_INPUT_OBJECT_TYPE_DEFINITION &&
         kind != GQL_AST_FIELD_DEFINITION &&
         kind != GQL_AST_INPUT_VALUE_DEFINITION &&
         kind != GQL_AST_ENUM_VALUE_DEFINITION;
}
static inline bool gql_ast_is_type_extension(int kind) {
  return kind >= GQL_AST_SCALAR_TYPE_EXTENSION &&
         kind <= GQL_AST_INPUT_OBJECT_TYPE_EXTENSION;
}
static inline bool gql_ast_is_executable_definition(int kind) {
  return kind == GQL_AST_OPERATION_DEFINITION ||
         kind == GQL_AST_FRAGMENT_DEFINITION;
}

/* ---- parsing pieces (src/language/parser.c) */

/* A syntax error as the parser finds it: graphql-js's "Syntax Error: ..."
 * (in the arena) and the offending character's offset and location. The
 * public gql_parse hands it out as one gql_error; the library's own callers
 * that want the offset take it from gql_parse_syntax. */
typedef struct gql_syntax_error {
  const char *message;
  size_t offset;
  gql_location location;
} gql_syntax_error;

/* gql_parse, with the syntax error (or the limit) in *err (NULL: not
 * kept). */
int gql_parse_syntax(gql_arena *arena, const char *source, size_t len,
                     const gql_parse_options *options, gql_document **out,
                     gql_syntax_error *err);

/* gql_parse of a source followed by GQL_PARSE_PAD readable bytes, the first
 * of them NUL (gql_prepare's copy of the query): the NUL stops the lexer's
 * inline scans at the end, so every name and punctuator takes the inline
 * path and no stopper is looked for in the text. `chunk`, when not NULL,
 * is gql_parse_first_chunk(len) bytes at an 8-byte boundary that the
 * parser cuts its first nodes from (a caller allocating anyway saves the
 * parser an arena call). */
enum { GQL_PARSE_PAD = 2 };
int gql_parse_padded(gql_arena *arena, const char *source, size_t len,
                     const gql_parse_options *options, void *chunk,
                     gql_document **out, gql_syntax_error *err);
/* The bytes of the parser's first node chunk for a text of `len` bytes:
 * the AST of a one-field document (288 bytes) and 8 per byte of text, up
 * to 512 (the later chunks double up to 64 KiB). */
static inline size_t gql_parse_first_chunk(size_t len) {
  return len < 28 ? 288 + len * 8 : 512;
}
/* Parses a lone value literal (graphql-js parseValue); `const_only` rejects
 * variables (parseConstValue). */
int gql_parse_value(gql_arena *arena, const char *source, size_t len,
                    const gql_parse_options *options, bool const_only,
                    gql_ast_value **out, gql_syntax_error *err);
/* Parses a lone type reference (graphql-js parseType). */
int gql_parse_type(gql_arena *arena, const char *source, size_t len,
                   const gql_parse_options *options, gql_ast_type **out,
                   gql_syntax_error *err);
/* Parses a schema coordinate (graphql-js parseSchemaCoordinate). */
int gql_parse_schema_coordinate(gql_arena *arena, const char *source,
                                size_t len, gql_ast_schema_coordinate **out,
                                gql_syntax_error *err);

/* ---- printing pieces (src/language/printer.c); each appends to `out` as
 * graphql-js print() would print that node. */
void gql_print_value(gql_buf *out, const gql_ast_value *value);
void gql_print_type(gql_buf *out, const gql_ast_type *type);
/* print() of any node: a document, a definition, a selection, ... */
void gql_print_node(gql_buf *out, const gql_ast_node *node);
/* graphql-js printString(): a JSON-like quoted string. */
void gql_print_string(gql_buf *out, gql_str s);
/* graphql-js printBlockString(). */
void gql_print_block_string(gql_buf *out, gql_str s);

/* The first directive named `name` in `dirs`, or NULL. */
const gql_ast_directive *gql_ast_find_directive(const gql_ast_directives *dirs,
                                                const char *name);
/* The argument named `name` of a directive node, or NULL. */
const gql_ast_argument *gql_ast_find_argument(const gql_ast_arguments *args,
                                              const char *name);

#endif
