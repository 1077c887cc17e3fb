/* gql exec: runs an operation against a schema and JSON data (default
 * resolvers) or the built-in Star Wars example, printing the response. */
#include "cli.h"
#include "schema/schema.h"

#include "../../examples/starwars/starwars.h"

#include <stdlib.h>

static const char usage[] =
    "Usage: gql exec --schema SCHEMA.graphql --data DATA.json [OPTIONS] "
    "[QUERY_FILE|-]\n"
    "       gql exec --example starwars [OPTIONS] [QUERY_FILE|-]\n\n"
    "Executes the operation and prints the response as one line of JSON\n"
    "(with @defer or @stream, each payload as a line).\n"
    "Exits 0 when the response has no errors, 1 when it has.\n\n"
    "Options:\n"
    "  --schema FILE      the schema SDL\n"
    "  --data FILE        the root value as JSON (fields resolve to the\n"
    "                     properties named after them)\n"
    "  --example NAME     a built-in example schema with C resolvers "
    "(starwars)\n"
    "  --variables FILE   variables as a JSON object\n"
    "  --operation NAME   the operation to run\n"
    "  --no-validate      execute without running the validation rules\n"
    "  --subscription-once\n"
    "                     accepted and the default: a subscription operation\n"
    "                     runs once over the data, as graphql-js's graphql()\n"
    "                     runs it\n"
    "  --defer-stream     add graphql-js 17's @defer and @stream to the "
    "schema\n"
    "  --spec-introspection\n"
    "                     introspection as the September 2025 spec has it\n"
    "                     where graphql-js 16.15 differs (no\n"
    "                     DIRECTIVE_DEFINITION location, includeDeprecated\n"
    "                     arguments Boolean!)\n"
    "  --trace-file PATH  append the spans of this execution to PATH as one\n"
    "                     OTLP/HTTP JSON batch per line\n"
    "  --trace-collapse on|off\n"
    "                     one span per field path with list indices as *\n"
    "                     (on, the default) or one per list item (off)\n"
    "  --trace-depth N    resolve spans for fields at most N named fields\n"
    "                     deep (0: none; default unlimited)\n"
    "  --trace-source     tag spans with the document text\n"
    "  --trace-variables a,b\n"
    "                     tag these variables' values\n";

typedef struct result {
  bool errors;
} result;

static void on_done(void *ud, const char *json, size_t len, bool has_errors) {
  result *r = ud;
  fwrite(json, 1, len, stdout);
  fputc('\n', stdout);
  r->errors |= has_errors;
}

static int usage_error(const char *msg) {
  fprintf(stderr, "gql exec: %s\n", msg);
  return 2;
}

static int run(int argc, char **argv) {
  const char *schema_path = NULL, *data_path = NULL, *vars_path = NULL,
             *op = NULL, *query_path = NULL, *example = NULL;
  bool no_validate = false, spec_locations = false, trace_source = false,
       defer_stream = false,
       subscription_once = true; /* graphql-js's graphql() */
  const char *trace_path = NULL, *trace_collapse = NULL, *trace_depth = NULL,
             *trace_vars = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char **dst = NULL;
    if (strcmp(a, "--schema") == 0)
      dst = &schema_path;
    else if (strcmp(a, "--data") == 0)
      dst = &data_path;
    else if (strcmp(a, "--variables") == 0)
      dst = &vars_path;
    else if (strcmp(a, "--operation") == 0)
      dst = &op;
    else if (strcmp(a, "--example") == 0)
      dst = &example;
    else if (strcmp(a, "--trace-file") == 0)
      dst = &trace_path;
    else if (strcmp(a, "--trace-collapse") == 0)
      dst = &trace_collapse;
    else if (strcmp(a, "--trace-depth") == 0)
      dst = &trace_depth;
    else if (strcmp(a, "--trace-variables") == 0)
      dst = &trace_vars;
    else if (strcmp(a, "--trace-source") == 0) {
      trace_source = true;
      continue;
    } else if (strcmp(a, "--no-validate") == 0) {
      no_validate = true;
      continue;
    } else if (strcmp(a, "--subscription-once") == 0) {
      subscription_once = true;
      continue;
    } else if (strcmp(a, "--defer-stream") == 0) {
      defer_stream = true;
      continue;
    } else if (strcmp(a, "--spec-introspection") == 0) {
      spec_locations = true;
      continue;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "gql exec: unknown option %s\n\n%s", a, usage);
      return 2;
    } else {
      query_path = a;
      continue;
    }
    if (++i >= argc) {
      fprintf(stderr, "gql exec: %s needs a value\n", a);
      return 2;
    }
    *dst = argv[i];
  }
  if (!example && !schema_path) {
    fprintf(stderr, "gql exec: give --schema or --example\n\n%s", usage);
    return 2;
  }
  if (trace_collapse && !gql_cli_trace_collapse_ok(trace_collapse))
    return usage_error("--trace-collapse takes on or off");
  if (trace_depth && !gql_cli_trace_depth_ok(trace_depth))
    return usage_error("--trace-depth takes a number (-1: unlimited)");
  if ((trace_collapse || trace_depth || trace_source || trace_vars) &&
      !trace_path)
    return usage_error("trace options need --trace-file");
  gql_trace_options to;
  char *vars_copy;
  const char *allow[64];
  if (gql_cli_trace_options(&to, trace_source, trace_collapse, trace_depth,
                            trace_vars, &vars_copy, allow) < 0)
    return 2;
  int status = 2;
  FILE *trace_file = NULL;
  gql_tracer *tracer = NULL;
  gql_trace *trace = NULL;
  char *sdl = NULL, *data = NULL, *vars = NULL, *query = NULL;
  size_t sdl_len = 0, vars_len = 0, query_len = 0;
  gql_schema *schema = NULL;
  gql_arena *arena = gql_arena_new(NULL);
  gql_prepared *prepared = NULL;
  if (!arena)
    goto done;
  if (example) {
    if (strcmp(example, "starwars") != 0) {
      fprintf(stderr, "gql exec: unknown example %s\n", example);
      goto done;
    }
    if (gql_cli_starwars(defer_stream, &schema) < 0) {
      fprintf(stderr, "gql exec: cannot build the example\n");
      goto done;
    }
  } else {
    if (!(sdl = gql_cli_read_file(schema_path, &sdl_len)))
      goto done;
    gql_error_list errs;
    gql_error_list_init(&errs, arena, 100);
    gql_schema_build_options bo = {.spec_introspection = spec_locations,
                                   .defer_stream = defer_stream};
    int rc = gql_schema_build(sdl, sdl_len, NULL, &bo, &schema, &errs);
    if (rc < 0) {
      gql_cli_print_errors_text(stderr, errs.items, errs.count, schema_path);
      if (!errs.count)
        fprintf(stderr, "gql exec: %s: %s\n", schema_path, gql_strerror(rc));
      goto done;
    }
  }
  if (!(query = gql_cli_read_file(query_path, &query_len)))
    goto done;
  const gql_value *root = NULL;
  if (data_path) {
    if (!(root = gql_cli_read_json(arena, "gql exec", data_path, &data)))
      goto done;
  }
  if (vars_path && !(vars = gql_cli_read_file(vars_path, &vars_len)))
    goto done;
  if (trace_path) {
    if (!(trace_file = fopen(trace_path, "a"))) {
      fprintf(stderr, "gql exec: cannot open %s\n", trace_path);
      goto done;
    }
    const char *svc = getenv("OTEL_SERVICE_NAME");
    gql_tracer_config tc = {.service_name = svc && *svc ? svc : "gql",
                            .transport = gql_trace_file_transport,
                            .transport_ud = trace_file};
    if (gql_tracer_new(&tc, &tracer) < 0 ||
        !(trace = gql_trace_begin(tracer, &to))) {
      fprintf(stderr, "gql exec: cannot start tracing\n");
      goto done;
    }
  }
  gql_prepare_options po = {.no_validate = no_validate, .trace = trace};
  gql_errors errors = {.arena = arena};
  int rc = gql_prepare(schema, query, query_len, op, &po, &prepared, &errors);
  gql_str json;
  if (rc < 0) {
    if (errors.count && gql_errors_response(&errors, NULL, arena, &json) == 0) {
      printf("%.*s\n", (int)json.len, json.ptr);
      status = 1;
    } else {
      fprintf(stderr, "gql exec: %s\n", gql_strerror(rc));
    }
    goto done;
  }
  result r = {0};
  gql_trace_set_operation(trace, prepared, vars, vars_len);
  gql_execute_params params = {.trace = trace,
                               .variables_json = vars,
                               .variables_len = vars_len,
                               .root_value = root,
                               .arena = arena,
                               .on_done = on_done,
                               .ud = &r,
                               .subscription_once = subscription_once};
  /* one payload a line; an operation without @defer or @stream runs as
   * gql_execute runs it */
  rc = gql_execute_incremental(prepared, &params);
  if (rc < 0) {
    fprintf(stderr, "gql exec: %s\n", gql_strerror(rc));
    goto done;
  }
  if (rc != 0) {
    fprintf(stderr, "gql exec: fields are still pending\n");
    goto done;
  }
  status = r.errors ? 1 : 0;
done:
  gql_trace_end(trace);
  gql_tracer_free(tracer); /* flushes */
  if (trace_file)
    fclose(trace_file);
  free(vars_copy);
  gql_prepared_free(prepared);
  gql_schema_free(schema);
  gql_arena_free(arena);
  free(sdl);
  free(data);
  free(vars);
  free(query);
  return status;
}

const gql_cli_command gql_cmd_exec = {
    .name = "exec",
    .summary = "execute an operation against a schema and JSON data",
    .usage = usage,
    .run = run,
};
