#include "cli.h"
#include "gateway/gateway.h"

#include <stdlib.h>

static int usage_error(const char *msg) {
  fprintf(stderr, "gql gateway: %s\n", msg);
  return 2;
}

/* Validates and plans the operation in `path`, printing the plan. */
static int print_plan(const gql_supergraph *sg, const char *path,
                      const char *op_name, gql_arena *arena) {
  size_t len;
  char *query = gql_cli_read_file(path, &len);
  if (!query)
    return 1;
  int status = 1;
  gql_prepared *prep = NULL;
  gql_str errors_json = {NULL, 0};
  int rc = gql_prepare(sg->api, query, len, op_name, NULL, &prep, arena,
                       &errors_json);
  gql_prepared_free(prep);
  if (rc) {
    if (errors_json.ptr)
      fprintf(stderr, "%.*s\n", (int)errors_json.len, errors_json.ptr);
    else
      fprintf(stderr, "gql gateway: %s\n", gql_strerror(rc));
    goto done;
  }
  gql_document *doc;
  gql_syntax_error se;
  if (gql_parse(arena, query, len, NULL, &doc, &se))
    goto done;
  gql_gw_plan *plan;
  const char *err = NULL;
  rc = gql_gw_plan_build(sg, doc, op_name, arena, &plan, &err);
  if (rc) {
    fprintf(stderr, "gql gateway: cannot plan: %s\n",
            err ? err : gql_strerror(rc));
    goto done;
  }
  gql_buf out;
  gql_buf_init(&out, NULL);
  gql_gw_plan_print(plan, &out);
  fwrite(out.data, 1, out.len, stdout);
  gql_buf_free(&out);
  status = 0;
done:
  free(query);
  return status;
}

static int run(int argc, char **argv) {
  const char *sg_path = NULL, *plan_path = NULL, *op_name = NULL;
  bool print_api = false;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--supergraph") == 0 && i + 1 < argc) {
      sg_path = argv[++i];
    } else if (strcmp(argv[i], "--plan") == 0 && i + 1 < argc) {
      plan_path = argv[++i];
    } else if (strcmp(argv[i], "--operation") == 0 && i + 1 < argc) {
      op_name = argv[++i];
    } else if (strcmp(argv[i], "--print-api-schema") == 0) {
      print_api = true;
    } else {
      fprintf(stderr, "gql gateway: unknown option '%s'\n", argv[i]);
      return 2;
    }
  }
  if (!sg_path)
    return usage_error("--supergraph FILE is required");
  if (!print_api && !plan_path)
    return usage_error("nothing to do: give --print-api-schema or --plan");
  size_t len;
  char *sdl = gql_cli_read_file(sg_path, &len);
  if (!sdl)
    return 1;
  gql_arena *arena = gql_arena_new(NULL);
  gql_supergraph *sg = NULL;
  const char *err = NULL;
  int status = 0;
  int rc = arena ? gql_supergraph_load(sdl, len, &sg, arena, &err) : GQL_ENOMEM;
  if (rc) {
    fprintf(stderr, "gql gateway: %s: %s\n", gql_cli_display_name(sg_path),
            err ? err : gql_strerror(rc));
    status = 1;
    goto done;
  }
  if (print_api) {
    const char *text;
    size_t text_len;
    if (gql_schema_print(sg->api, arena, &text, &text_len)) {
      status = 1;
      goto done;
    }
    fwrite(text, 1, text_len, stdout);
    fputc('\n', stdout);
  }
  if (plan_path)
    status = print_plan(sg, plan_path, op_name, arena);
done:
  gql_supergraph_free(sg);
  gql_arena_free(arena);
  free(sdl);
  return status;
}

const gql_cli_command gql_cmd_gateway = {
    "gateway", "federation gateway: API schema and query plans",
    "Usage: gql gateway --supergraph FILE [--print-api-schema]\n"
    "                   [--plan QUERY_FILE [--operation NAME]]\n\n"
    "Reads an Apollo Federation v2 supergraph (join v0.3).\n\n"
    "  --print-api-schema  print the client-facing API schema (join and link\n"
    "                      machinery removed, @inaccessible parts hidden)\n"
    "  --plan QUERY_FILE   validate the operation against the API schema and\n"
    "                      print its query plan: the subgraph requests by\n"
    "                      wave, entity fetches batched per subgraph\n"
    "  --operation NAME    the operation to plan when the file has several\n",
    run};
