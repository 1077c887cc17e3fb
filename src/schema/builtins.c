/* The built-in scalars, directives and introspection types, written as SDL
 * and parsed into every schema (graphql-js 16 wording for descriptions).
 * The introspection types are those graphql-js 16.11+ answers with
 * (__Schema.directives(includeDeprecated:), __Directive.isDeprecated, the
 * DIRECTIVE_DEFINITION location, also on @deprecated). The September 2025
 * spec has no DIRECTIVE_DEFINITION: gql_schema_build's
 * spec_directive_locations option takes it out again (see
 * ../shared/conformance/introspection/README.md).
 * The pseudo-type __Meta carries the meta-fields; it never enters the type
 * map. */
#include "internal.h"

static const char builtin_sdl[] =
    "\"\"\"The `String` scalar type represents textual data, represented as "
    "UTF-8 character sequences. The String type is most often used by "
    "GraphQL to represent free-form human-readable text.\"\"\"\n"
    "scalar String\n"
    "\"\"\"The `Int` scalar type represents non-fractional signed whole "
    "numeric values. Int can represent values between -(2^31) and 2^31 - "
    "1.\"\"\"\n"
    "scalar Int\n"
    "\"\"\"The `Float` scalar type represents signed double-precision "
    "fractional values as specified by [IEEE "
    "754](https://en.wikipedia.org/wiki/IEEE_floating_point).\"\"\"\n"
    "scalar Float\n"
    "\"\"\"The `Boolean` scalar type represents `true` or `false`.\"\"\"\n"
    "scalar Boolean\n"
    "\"\"\"The `ID` scalar type represents a unique identifier, often used "
    "to refetch an object or as key for a cache. The ID type appears in a "
    "JSON response as a String; however, it is not intended to be "
    "human-readable. When expected as an input type, any string (such as "
    "`\"4\"`) or integer (such as `4`) input value will be accepted as an "
    "ID.\"\"\"\n"
    "scalar ID\n"
    "\"\"\"Directs the executor to include this field or fragment only when "
    "the `if` argument is true.\"\"\"\n"
    "directive @include(\"Included when true.\" if: Boolean!) on FIELD | "
    "FRAGMENT_SPREAD | INLINE_FRAGMENT\n"
    "\"\"\"Directs the executor to skip this field or fragment when the `if` "
    "argument is true.\"\"\"\n"
    "directive @skip(\"Skipped when true.\" if: Boolean!) on FIELD | "
    "FRAGMENT_SPREAD | INLINE_FRAGMENT\n"
    "\"\"\"Marks an element of a GraphQL schema as no longer "
    "supported.\"\"\"\n"
    "directive @deprecated(\"Explains why this element was deprecated, "
    "usually also including a suggestion for how to access supported "
    "similar data. Formatted using the Markdown syntax, as specified by "
    "[CommonMark](https://commonmark.org/).\" reason: String = \"No longer "
    "supported\") on FIELD_DEFINITION | ARGUMENT_DEFINITION | "
    "INPUT_FIELD_DEFINITION | ENUM_VALUE | DIRECTIVE_DEFINITION\n"
    "\"\"\"Exposes a URL that specifies the behavior of this scalar.\"\"\"\n"
    "directive @specifiedBy(\"The URL that specifies the behavior of this "
    "scalar.\" url: String!) on SCALAR\n"
    "\"\"\"Indicates exactly one field must be supplied and this field must "
    "not be `null`.\"\"\"\n"
    "directive @oneOf on INPUT_OBJECT\n"
    "\"\"\"A GraphQL Schema defines the capabilities of a GraphQL server. It "
    "exposes all available types and directives on the server, as well as "
    "the entry points for query, mutation, and subscription "
    "operations.\"\"\"\n"
    "type __Schema {\n"
    "  description: String\n"
    "  \"A list of all types supported by this server.\"\n"
    "  types: [__Type!]!\n"
    "  \"The type that query operations will be rooted at.\"\n"
    "  queryType: __Type!\n"
    "  \"If this server supports mutation, the type that mutation operations "
    "will be rooted at.\"\n"
    "  mutationType: __Type\n"
    "  \"If this server support subscription, the type that subscription "
    "operations will be rooted at.\"\n"
    "  subscriptionType: __Type\n"
    "  \"A list of all directives supported by this server.\"\n"
    "  directives(includeDeprecated: Boolean! = false): [__Directive!]!\n"
    "}\n"
    "\"\"\"The fundamental unit of any GraphQL Schema is the type. There are "
    "many kinds of types in GraphQL as represented by the `__TypeKind` "
    "enum.\n\nDepending on the kind of a type, certain fields describe "
    "information about that type. Scalar types provide no information "
    "beyond a name, description and optional `specifiedByURL`, while Enum "
    "types provide their values. Object and Interface types provide the "
    "fields they describe. Abstract types, Union and Interface, provide the "
    "Object types possible at runtime. List and NonNull types compose other "
    "types.\"\"\"\n"
    "type __Type {\n"
    "  kind: __TypeKind!\n"
    "  name: String\n"
    "  description: String\n"
    "  specifiedByURL: String\n"
    "  fields(includeDeprecated: Boolean = false): [__Field!]\n"
    "  interfaces: [__Type!]\n"
    "  possibleTypes: [__Type!]\n"
    "  enumValues(includeDeprecated: Boolean = false): [__EnumValue!]\n"
    "  inputFields(includeDeprecated: Boolean = false): [__InputValue!]\n"
    "  ofType: __Type\n"
    "  isOneOf: Boolean\n"
    "}\n"
    "\"An enum describing what kind of type a given `__Type` is.\"\n"
    "enum __TypeKind {\n"
    "  \"Indicates this type is a scalar.\"\n"
    "  SCALAR\n"
    "  \"Indicates this type is an object. `fields` and `interfaces` are "
    "valid fields.\"\n"
    "  OBJECT\n"
    "  \"Indicates this type is an interface. `fields`, `interfaces`, and "
    "`possibleTypes` are valid fields.\"\n"
    "  INTERFACE\n"
    "  \"Indicates this type is a union. `possibleTypes` is a valid field.\"\n"
    "  UNION\n"
    "  \"Indicates this type is an enum. `enumValues` is a valid field.\"\n"
    "  ENUM\n"
    "  \"Indicates this type is an input object. `inputFields` is a valid "
    "field.\"\n"
    "  INPUT_OBJECT\n"
    "  \"Indicates this type is a list. `ofType` is a valid field.\"\n"
    "  LIST\n"
    "  \"Indicates this type is a non-null. `ofType` is a valid field.\"\n"
    "  NON_NULL\n"
    "}\n"
    "\"\"\"Object and Interface types are described by a list of Fields, "
    "each of which has a name, potentially a list of arguments, and a "
    "return type.\"\"\"\n"
    "type __Field {\n"
    "  name: String!\n"
    "  description: String\n"
    "  args(includeDeprecated: Boolean = false): [__InputValue!]!\n"
    "  type: __Type!\n"
    "  isDeprecated: Boolean!\n"
    "  deprecationReason: String\n"
    "}\n"
    "\"\"\"Arguments provided to Fields or Directives and the input fields of "
    "an InputObject are represented as Input Values which describe their "
    "type and optionally a default value.\"\"\"\n"
    "type __InputValue {\n"
    "  name: String!\n"
    "  description: String\n"
    "  type: __Type!\n"
    "  \"A GraphQL-formatted string representing the default value for this "
    "input value.\"\n"
    "  defaultValue: String\n"
    "  isDeprecated: Boolean!\n"
    "  deprecationReason: String\n"
    "}\n"
    "\"\"\"One possible value for a given Enum. Enum values are unique "
    "values, not a placeholder for a string or numeric value. However an "
    "Enum value is returned in a JSON response as a string.\"\"\"\n"
    "type __EnumValue {\n"
    "  name: String!\n"
    "  description: String\n"
    "  isDeprecated: Boolean!\n"
    "  deprecationReason: String\n"
    "}\n"
    "\"\"\"A Directive provides a way to describe alternate runtime execution "
    "and type validation behavior in a GraphQL document.\n\nIn some cases, "
    "you need to provide options to alter GraphQL's execution behavior in "
    "ways field arguments will not suffice, such as conditionally including "
    "or skipping a field. Directives provide this by describing additional "
    "information to the executor.\"\"\"\n"
    "type __Directive {\n"
    "  name: String!\n"
    "  description: String\n"
    "  isRepeatable: Boolean!\n"
    "  locations: [__DirectiveLocation!]!\n"
    "  args(includeDeprecated: Boolean = false): [__InputValue!]!\n"
    "  isDeprecated: Boolean!\n"
    "  deprecationReason: String\n"
    "}\n"
    "\"\"\"A Directive can be adjacent to many parts of the GraphQL language, "
    "a __DirectiveLocation describes one such possible adjacencies.\"\"\"\n"
    "enum __DirectiveLocation {\n"
    "  \"Location adjacent to a query operation.\"\n  QUERY\n"
    "  \"Location adjacent to a mutation operation.\"\n  MUTATION\n"
    "  \"Location adjacent to a subscription operation.\"\n  SUBSCRIPTION\n"
    "  \"Location adjacent to a field.\"\n  FIELD\n"
    "  \"Location adjacent to a fragment definition.\"\n  "
    "FRAGMENT_DEFINITION\n"
    "  \"Location adjacent to a fragment spread.\"\n  FRAGMENT_SPREAD\n"
    "  \"Location adjacent to an inline fragment.\"\n  INLINE_FRAGMENT\n"
    "  \"Location adjacent to a variable definition.\"\n  "
    "VARIABLE_DEFINITION\n"
    "  \"Location adjacent to a schema definition.\"\n  SCHEMA\n"
    "  \"Location adjacent to a scalar definition.\"\n  SCALAR\n"
    "  \"Location adjacent to an object type definition.\"\n  OBJECT\n"
    "  \"Location adjacent to a field definition.\"\n  FIELD_DEFINITION\n"
    "  \"Location adjacent to an argument definition.\"\n  "
    "ARGUMENT_DEFINITION\n"
    "  \"Location adjacent to an interface definition.\"\n  INTERFACE\n"
    "  \"Location adjacent to a union definition.\"\n  UNION\n"
    "  \"Location adjacent to an enum definition.\"\n  ENUM\n"
    "  \"Location adjacent to an enum value definition.\"\n  ENUM_VALUE\n"
    "  \"Location adjacent to an input object type definition.\"\n  "
    "INPUT_OBJECT\n"
    "  \"Location adjacent to an input object field definition.\"\n  "
    "INPUT_FIELD_DEFINITION\n"
    "  \"Location adjacent to a directive definition.\"\n  "
    "DIRECTIVE_DEFINITION\n"
    "}\n"
    "type __Meta {\n"
    "  \"Access the current type schema of this server.\"\n"
    "  __schema: __Schema!\n"
    "  \"Request the type information of a single type.\"\n"
    "  __type(name: String!): __Type\n"
    "  \"The name of the current Object type at runtime.\"\n"
    "  __typename: String!\n"
    "}\n";

gql_str gql_schema_builtin_sdl(void) {
  return (gql_str){builtin_sdl, sizeof builtin_sdl - 1};
}

/* graphql-js 17.1's GraphQLDeferDirective and GraphQLStreamDirective, word
 * for word (its printSchema of them; tests/incremental records schemas
 * with them). */
static const char defer_stream_sdl[] =
    "\"\"\"Directs the executor to defer this fragment when the `if` argument "
    "is true or undefined.\"\"\"\n"
    "directive @defer(\"Deferred when true or undefined.\" if: Boolean! = "
    "true, \"Unique name\" label: String) on FRAGMENT_SPREAD | "
    "INLINE_FRAGMENT\n"
    "\"\"\"Directs the executor to stream plural fields when the `if` "
    "argument is true or undefined.\"\"\"\n"
    "directive @stream(\"Number of items to return immediately\" "
    "initialCount: Int! = 0, \"Stream when true or undefined.\" if: Boolean! "
    "= true, \"Unique name\" label: String) on FIELD\n";

gql_str gql_schema_defer_stream_sdl(void) {
  return (gql_str){defer_stream_sdl, sizeof defer_stream_sdl - 1};
}

static const char *const std_scalars[] = {"String", "Int", "Float", "Boolean",
                                          "ID"};
static const char *const std_directives[] = {"include", "skip", "deprecated",
                                             "specifiedBy", "oneOf"};

bool gql_schema_is_std_scalar_name(gql_str name) {
  for (size_t i = 0; i < GQL_ARRAY_LEN(std_scalars); i++)
    if (gql_str_eq_cstr(name, std_scalars[i]))
      return true;
  return false;
}

bool gql_schema_is_introspection_name(gql_str name) {
  static const char *const names[] = {
      "__Schema",     "__Type",      "__TypeKind",  "__Field",
      "__InputValue", "__EnumValue", "__Directive", "__DirectiveLocation"};
  for (size_t i = 0; i < GQL_ARRAY_LEN(names); i++)
    if (gql_str_eq_cstr(name, names[i]))
      return true;
  return false;
}

bool gql_schema_is_std_directive_name(gql_str name) {
  for (size_t i = 0; i < GQL_ARRAY_LEN(std_directives); i++)
    if (gql_str_eq_cstr(name, std_directives[i]))
      return true;
  return false;
}
