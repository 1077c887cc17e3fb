#include "cli.h"
#include "schema/schema.h"

#include <stdlib.h>

static void print_errors(const gql_error_list *l, const char *path) {
  gql_cli_print_errors_text(stderr, l->items, l->count, path);
}

static int run(int argc, char **argv) {
  const char *path = NULL, *base_path = NULL;
  bool assume_valid = false, defer_stream = false;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--base") == 0 && i + 1 < argc) {
      base_path = argv[++i];
      continue;
    }
    if (strcmp(argv[i], "--assume-valid") == 0) {
      assume_valid = true;
      continue;
    }
    if (strcmp(argv[i], "--defer-stream") == 0) {
      defer_stream = true;
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
    gql_schema_build_options o = {.skip_type_validation = true,
                                  .defer_stream = defer_stream};
    int rc = gql_schema_build(base_src, base_len, NULL, &o, &base, &errors);
    if (rc) {
      if (!errors.count)
        fprintf(stderr, "gql print-schema: %s\n", gql_strerror(rc));
      print_errors(&errors, base_path);
      status = 1;
      goto done;
    }
  }
  src = gql_cli_read_file(path, &len);
  if (!src) {
    status = 1;
    goto done;
  }
  gql_schema_build_options o = {.base = base,
                                .skip_type_validation = assume_valid,
                                .defer_stream = defer_stream};
  int rc = gql_schema_build(src, len, NULL, &o, &schema, &errors);
  if (rc) {
    if (!errors.count)
      fprintf(stderr, "gql print-schema: %s\n", gql_strerror(rc));
    print_errors(&errors, path);
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
    "Usage: gql print-schema [--base BASE] [--assume-valid] [--defer-stream] "
    "[FILE|-]\n\n"
    "Builds a schema from the SDL in FILE (standard input when absent or "
    "'-'),\n"
    "validating it as graphql-js 16 does, and prints it as printSchema "
    "does.\n"
    "On errors prints FILE:LINE:COLUMN: MESSAGE lines on standard error and\n"
    "exits 1.\n\n"
    "  --base BASE       FILE extends the schema in BASE (extendSchema)\n"
    "  --assume-valid    skip the type-system checks (graphql-js\n"
    "                    validateSchema); SDL rules still apply\n"
    "  --defer-stream    add graphql-js 17's @defer and @stream unless the\n"
    "                    SDL declares them\n"
    "\n`gql validate --sdl` runs the SDL rules one by one.\n",
    run};
