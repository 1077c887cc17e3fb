#include "cli.h"
#include "schema/schema.h"

#include <stdlib.h>

static void json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c == '\n')
      fputs("\\n", f);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

static void print_errors(const gql_error_list *l, const char *path, bool json) {
  if (json) {
    printf("[");
    for (uint32_t i = 0; i < l->count; i++) {
      const gql_error *e = &l->items[i];
      printf("%s{\"message\": ", i ? ", " : "");
      json_string(stdout, e->message);
      printf(", \"locations\": [");
      for (uint32_t j = 0; j < e->nlocations; j++)
        printf("%s{\"line\": %u, \"column\": %u}", j ? ", " : "",
               e->locations[j].line, e->locations[j].column);
      printf("]}");
    }
    printf("]\n");
    return;
  }
  for (uint32_t i = 0; i < l->count; i++) {
    const gql_error *e = &l->items[i];
    if (e->nlocations)
      fprintf(stderr, "%s:%u:%u: %s\n", gql_cli_display_name(path),
              e->locations[0].line, e->locations[0].column, e->message);
    else
      fprintf(stderr, "%s: %s\n", gql_cli_display_name(path), e->message);
  }
}

/* Validates FILE's SDL with one rule (or all) against an optional base. */
static int run_rule(const char *rule, const gql_schema *base, const char *src,
                    size_t len, const char *path, gql_arena *arena, bool json) {
  gql_error_list errors;
  gql_error_list_init(&errors, arena, 0);
  gql_document *doc = NULL;
  gql_syntax_error err = {0};
  int rc = gql_parse(arena, src, len, NULL, &doc, &err);
  if (rc == GQL_ESYNTAX || rc == GQL_ELIMIT) {
    gql_error_list_push(&errors, err.message, &err.location, 1);
    print_errors(&errors, path, json);
    return 1;
  }
  if (!rc)
    rc = gql_sdl_validate(doc, (gql_str){src, len}, base,
                          strcmp(rule, "all") == 0 ? NULL : rule, &errors);
  if (rc == GQL_ENOTFOUND) {
    fprintf(stderr, "gql print-schema: unknown SDL rule '%s'\n", rule);
    return 2;
  }
  if (rc) {
    fprintf(stderr, "gql print-schema: %s\n", gql_strerror(rc));
    return 1;
  }
  print_errors(&errors, path, json);
  return errors.count ? 1 : 0;
}

static int run(int argc, char **argv) {
  const char *path = NULL, *base_path = NULL, *rule = NULL;
  bool json = false, assume_valid = false;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--base") == 0 && i + 1 < argc) {
      base_path = argv[++i];
      continue;
    }
    if (strcmp(argv[i], "--sdl-rule") == 0 && i + 1 < argc) {
      rule = argv[++i];
      continue;
    }
    if (strcmp(argv[i], "--assume-valid") == 0) {
      assume_valid = true;
      continue;
    }
    if (strcmp(argv[i], "--json-errors") == 0) {
      json = true;
      continue;
    }
    if (argv[i][0] == '-' && argv[i][1] && strcmp(argv[i], "--") != 0) {
      fprintf(stderr, "gql print-schema: unknown option '%s'\n", argv[i]);
      return 2;
    }
    if (strcmp(argv[i], "--") == 0 && i + 1 < argc)
      i++;
    if (path) {
      fprintf(stderr, "gql print-schema: one file at a time\n");
      return 2;
    }
    path = argv[i];
  }
  int status = 0;
  size_t len = 0, base_len = 0;
  char *src = NULL, *base_src = NULL;
  gql_schema *base = NULL, *schema = NULL;
  gql_arena *arena = gql_arena_new(NULL);
  if (!arena)
    return 1;
  gql_error_list errors;
  gql_error_list_init(&errors, arena, 100);
  if (base_path) {
    base_src = gql_cli_read_file(base_path, &base_len);
    if (!base_src) {
      status = 1;
      goto done;
    }
    /* a base schema is taken as graphql-js buildSchema takes it: SDL rules
     * but no type-system checks */
    gql_schema_build_options o = {.skip_type_validation = true};
    int rc = gql_schema_build(base_src, base_len, NULL, &o, &base, &errors);
    if (rc) {
      if (!errors.count)
        fprintf(stderr, "gql print-schema: %s\n", gql_strerror(rc));
      print_errors(&errors, base_path, false);
      status = 1;
      goto done;
    }
  }
  src = gql_cli_read_file(path, &len);
  if (!src) {
    status = 1;
    goto done;
  }
  if (rule) {
    status = run_rule(rule, base, src, len, path, arena, json);
    goto done;
  }
  gql_schema_build_options o = {.base = base,
                                .skip_type_validation = assume_valid};
  int rc = gql_schema_build(src, len, NULL, &o, &schema, &errors);
  if (rc) {
    if (!errors.count)
      fprintf(stderr, "gql print-schema: %s\n", gql_strerror(rc));
    print_errors(&errors, path, json);
    status = 1;
    goto done;
  }
  const char *out;
  size_t out_len;
  if (gql_schema_print(schema, arena, &out, &out_len)) {
    fprintf(stderr, "gql print-schema: %s\n", gql_strerror(GQL_ENOMEM));
    status = 1;
    goto done;
  }
  fwrite(out, 1, out_len, stdout);
  fputc('\n', stdout);
done:
  gql_schema_free(schema);
  gql_schema_free(base);
  gql_arena_free(arena);
  free(src);
  free(base_src);
  return status;
}

const gql_cli_command gql_cmd_print_schema = {
    "print-schema", "build a schema from SDL and print it as graphql-js does",
    "Usage: gql print-schema [--base BASE] [--sdl-rule RULE] [--json-errors] "
    "[FILE|-]\n\n"
    "Builds a schema from the SDL in FILE (standard input when absent or "
    "'-'),\n"
    "validating it as graphql-js 16 does, and prints it as printSchema "
    "does.\n"
    "On errors prints FILE:LINE:COLUMN: MESSAGE lines on standard error and\n"
    "exits 1.\n\n"
    "  --base BASE       FILE extends the schema in BASE (extendSchema)\n"
    "  --sdl-rule RULE   only run the SDL validation rule RULE (or 'all')\n"
    "                    and report its errors; print no schema\n"
    "  --assume-valid    skip the type-system checks (graphql-js\n"
    "                    validateSchema); SDL rules still apply\n"
    "  --json-errors     report errors as a JSON array on standard output\n",
    run};
