#include "cli.h"

#include <stdlib.h>

static int run(int argc, char **argv) {
  const char *path = NULL;
  for (int i = 1; i < argc; i++) {
    if (argv[i][0] == '-' && argv[i][1] && strcmp(argv[i], "--") != 0) {
      fprintf(stderr, "gql format: unknown option '%s'\n", argv[i]);
      return 2;
    }
    if (strcmp(argv[i], "--") == 0 && i + 1 < argc)
      i++;
    if (path) {
      fprintf(stderr, "gql format: one file at a time\n");
      return 2;
    }
    path = argv[i];
  }
  size_t len;
  char *src = gql_cli_read_file(path, &len);
  if (!src)
    return 1;
  gql_arena *arena = gql_arena_new(NULL);
  gql_document *doc = NULL;
  gql_errors errors = {.arena = arena};
  int rc = arena ? gql_parse(arena, src, len, NULL, &doc, &errors) : GQL_ENOMEM;
  int status = 0;
  if (errors.count) { /* a syntax error or a limit: one, with its place */
    const gql_error *e = &errors.items[0];
    fprintf(stderr, "%s:%u:%u: %s\n", gql_cli_display_name(path),
            e->locations[0].line, e->locations[0].column, e->message);
    status = 1;
  } else if (rc) {
    fprintf(stderr, "gql format: %s\n", gql_strerror(rc));
    status = 1;
  } else {
    const char *out;
    size_t out_len;
    rc = gql_print(arena, doc, &out, &out_len);
    if (rc) {
      fprintf(stderr, "gql format: %s\n", gql_strerror(rc));
      status = 1;
    } else {
      fwrite(out, 1, out_len, stdout);
      if (out_len)
        fputc('\n', stdout);
    }
  }
  gql_arena_free(arena);
  free(src);
  return status;
}

const gql_cli_command gql_cmd_format = {
    "format", "print a GraphQL document formatted as graphql-js prints it",
    "Usage: gql format [FILE|-]\n\n"
    "Parses FILE (standard input when absent or '-') and prints it as\n"
    "graphql-js 16's print() does. On a syntax error prints\n"
    "FILE:LINE:COLUMN: MESSAGE on standard error and exits 1.\n",
    run};
