/* gql validate: validates an executable document (or SDL) against a schema
 * and prints graphql-js's errors as JSON. */
#include "cli.h"
#include "schema/schema.h"
#include "validation/validation.h"

#include <stdlib.h>

#define MAX_RULES 64

static void print_json(const gql_error_list *l) {
  gql_cli_print_errors_json(stdout, l->items, l->count);
}

static void print_schema_errors(const gql_error_list *l, const char *path) {
  gql_cli_print_errors_text(stderr, l->items, l->count, path);
}

typedef struct options {
  const char *schema_path;
  const char *query_path;
  const char *rules[MAX_RULES];
  uint32_t nrules;
  bool sdl;
  bool defer_stream;
} options;

static int parse_args(int argc, char **argv, options *o) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--schema") == 0 && i + 1 < argc) {
      o->schema_path = argv[++i];
    } else if (strcmp(a, "--rule") == 0 && i + 1 < argc) {
      if (o->nrules == MAX_RULES) {
        fprintf(stderr, "gql validate: too many --rule options\n");
        return 2;
      }
      o->rules[o->nrules++] = argv[++i];
    } else if (strcmp(a, "--sdl") == 0) {
      o->sdl = true;
    } else if (strcmp(a, "--defer-stream") == 0) {
      o->defer_stream = true;
    } else if (strcmp(a, "--") == 0 && i + 1 < argc && !o->query_path) {
      o->query_path = argv[++i];
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "gql validate: unknown or incomplete option '%s'\n", a);
      return 2;
    } else if (o->query_path) {
      fprintf(stderr, "gql validate: one document at a time\n");
      return 2;
    } else {
      o->query_path = a;
    }
  }
  if (!o->schema_path && !o->sdl) {
    fprintf(stderr, "gql validate: --schema SCHEMA is required\n");
    return 2;
  }
  return 0;
}

/* SDL rule names are passed on with the "Rule" suffix. */
static const char *sdl_rule_name(gql_arena *arena, const char *name) {
  size_t n = strlen(name);
  if (n >= 4 && strcmp(name + n - 4, "Rule") == 0)
    return name;
  return gql_arena_sprintf(arena, "%sRule", name);
}

static int validate_sdl(const options *o, const gql_schema *base,
                        const gql_document *doc, gql_str src, gql_arena *arena,
                        gql_error_list *errors) {
  if (!o->nrules)
    return gql_sdl_validate(doc, src, base, NULL, errors);
  for (uint32_t i = 0; i < o->nrules; i++) {
    const char *name = sdl_rule_name(arena, o->rules[i]);
    int rc = name ? gql_sdl_validate(doc, src, base, name, errors) : GQL_ENOMEM;
    if (rc == GQL_ENOTFOUND) {
      fprintf(stderr, "gql validate: unknown SDL rule '%s'\n", o->rules[i]);
      return 2;
    }
    if (rc)
      return rc;
  }
  return 0;
}

static int run(int argc, char **argv) {
  options o = {0};
  int status = parse_args(argc, argv, &o);
  if (status)
    return status;
  const gql_vrule *rules[MAX_RULES];
  for (uint32_t i = 0; i < o.nrules && !o.sdl; i++) {
    rules[i] = gql_find_rule(o.rules[i], strlen(o.rules[i]));
    if (!rules[i]) {
      fprintf(stderr, "gql validate: unknown rule '%s'\n", o.rules[i]);
      return 2;
    }
  }
  size_t len = 0, schema_len = 0;
  char *src = NULL, *schema_src = NULL;
  gql_schema *schema = NULL;
  gql_arena *arena = gql_arena_new(NULL);
  if (!arena)
    return 1;
  gql_error_list errors;
  gql_error_list_init(&errors, arena, 0);
  if (o.schema_path) {
    schema_src = gql_cli_read_file(o.schema_path, &schema_len);
    if (!schema_src) {
      status = 2;
      goto done;
    }
    /* For --sdl the base is only the schema being extended: graphql-js's
     * validateSDL does not require it to be a valid schema on its own. */
    gql_schema_build_options bo = {.skip_type_validation = o.sdl,
                                   .defer_stream = o.defer_stream};
    int rc =
        gql_schema_build(schema_src, schema_len, NULL, &bo, &schema, &errors);
    if (rc) {
      if (!errors.count)
        fprintf(stderr, "gql validate: %s: %s\n",
                gql_cli_display_name(o.schema_path), gql_strerror(rc));
      print_schema_errors(&errors, o.schema_path);
      status = 2;
      goto done;
    }
  }
  src = gql_cli_read_file(o.query_path, &len);
  if (!src) {
    status = 2;
    goto done;
  }
  gql_document *doc = NULL;
  gql_syntax_error serr = {0};
  int rc = gql_parse_syntax(arena, src, len, NULL, &doc, &serr);
  if (rc == GQL_ESYNTAX || rc == GQL_ELIMIT) {
    gql_error_list_push(&errors, serr.message, &serr.location, 1);
    print_json(&errors);
    status = 1;
    goto done;
  }
  if (!rc) {
    if (o.sdl)
      rc = validate_sdl(&o, schema, doc, (gql_str){src, len}, arena, &errors);
    else
      rc = gql_validate_document(schema, doc, o.nrules ? rules : NULL, o.nrules,
                                 NULL, &errors);
  }
  if (rc == 2) {
    status = 2;
    goto done;
  }
  if (rc) {
    fprintf(stderr, "gql validate: %s\n", gql_strerror(rc));
    status = 1;
    goto done;
  }
  print_json(&errors);
  status = errors.count ? 1 : 0;
done:
  gql_schema_free(schema);
  gql_arena_free(arena);
  free(src);
  free(schema_src);
  return status;
}

const gql_cli_command gql_cmd_validate = {
    "validate", "validate a document against a schema as graphql-js does",
    "Usage: gql validate --schema SCHEMA [--rule NAME]... [--sdl] "
    "[--defer-stream] [FILE|-]\n\n"
    "Validates the executable document in FILE (standard input when absent "
    "or\n'-') against the schema built from SCHEMA, with graphql-js 16's\n"
    "specifiedRules (and graphql-js 17's four rules about @defer and\n"
    "@stream), and prints the errors as a JSON array ([] when valid).\n"
    "Exits 0 when valid, 1 when not (syntax errors included), 2 on usage\n"
    "errors or an invalid schema (its errors go to standard error).\n\n"
    "  --schema SCHEMA  the schema's SDL\n"
    "  --rule NAME      run only this rule (ScalarLeafsRule or ScalarLeafs);\n"
    "                   may be repeated\n"
    "  --sdl            validate FILE as SDL (validateSDL), extending SCHEMA\n"
    "                   when given; --rule then names SDL rules\n"
    "  --defer-stream   add graphql-js 17's @defer and @stream to the schema\n"
    "                   unless its SDL declares them\n",
    run};
