/* Hot reload for gql serve and gql gateway: what a generation is made of
 * (the schema and data files, or the supergraph, plus the operation limits
 * of the configuration file and flags), loaded once at start and again on
 * SIGHUP or a change to one of those files (the http part watches them and
 * swaps generations; see gql_http_reload). A load that fails says why on
 * stderr, as at start, and the server keeps its generation. */
#include "cli.h"
#include "federation/subgraph.h"
#include "gateway/gateway.h"
#include "gql_http.h"
#include "schema/schema.h"

#include "../../examples/starwars/starwars.h"

#include <stdlib.h>

/* What one generation owns. */
typedef struct loaded {
  gql_schema *schema; /* NULL with sg or supergraph: theirs */
  gql_subgraph *sg;
  gql_supergraph *supergraph;
  gql_arena *arena;
  char *text, *data;
} loaded;

static void loaded_free(void *ud) {
  loaded *l = ud;
  if (!l)
    return;
  if (l->sg)
    gql_subgraph_free(l->sg); /* it owns the schema */
  else
    gql_schema_free(l->schema);
  gql_supergraph_free(l->supergraph);
  gql_arena_free(l->arena);
  free(l->text);
  free(l->data);
  free(l);
}

/* gql serve's schema (the Star Wars demo without a path) and data. */
static int serve_files(const gql_cli_reload *r, gql_http_generation *out) {
  const char *cmd = r->cmd;
  loaded *l = calloc(1, sizeof *l);
  if (!l || !(l->arena = gql_arena_new(NULL))) {
    free(l);
    fprintf(stderr, "%s: out of memory\n", cmd);
    return GQL_ENOMEM;
  }
  int rc = GQL_EINVAL;
  if (!r->schema) {
    if ((rc = gql_starwars_schema(&l->schema)) < 0)
      fprintf(stderr, "%s: cannot build the Star Wars example\n", cmd);
  } else {
    size_t len = 0;
    if (!(l->text = gql_cli_read_file_as(cmd, r->schema, &len)))
      goto fail;
    gql_error_list errs;
    gql_error_list_init(&errs, l->arena, 100);
    gql_schema_build_options bo = {.defer_stream = r->defer_stream};
    rc = r->subgraph
             ? gql_subgraph_build(l->text, len, NULL, &l->sg, &errs)
             : gql_schema_build(l->text, len, NULL, &bo, &l->schema, &errs);
    if (l->sg)
      l->schema = gql_subgraph_schema(l->sg);
    if (rc < 0) {
      gql_cli_print_errors_text(stderr, errs.items, errs.count, r->schema);
      if (!errs.count)
        fprintf(stderr, "%s: %s: %s\n", cmd, r->schema, gql_strerror(rc));
    }
  }
  if (rc >= 0 && r->schema_ready && (rc = r->schema_ready(l->schema)) < 0)
    fprintf(stderr, "%s: cannot set up subscriptions: %s\n", cmd,
            gql_strerror(rc));
  if (rc < 0)
    goto fail;
  const gql_value *root = NULL;
  if (r->data) {
    if (!(root = gql_cli_read_json(l->arena, cmd, r->data, &l->data))) {
      rc = GQL_EINVAL;
      goto fail;
    }
    if (l->sg)
      gql_subgraph_set_json(l->sg, root);
  }
  *out = (gql_http_generation){
      .schema = l->schema, .root_value = root, .ud = l, .release = loaded_free};
  return 0;
fail:
  loaded_free(l);
  return rc < 0 ? rc : GQL_EINVAL;
}

/* gql gateway's supergraph: the generation's schema is its API schema,
 * the executor reads the supergraph from gql_http_exec.generation. */
static int gateway_files(const gql_cli_reload *r, gql_http_generation *out) {
  const char *cmd = r->cmd;
  loaded *l = calloc(1, sizeof *l);
  size_t len = 0;
  if (!l || !(l->arena = gql_arena_new(NULL))) {
    free(l);
    fprintf(stderr, "%s: out of memory\n", cmd);
    return GQL_ENOMEM;
  }
  if (!(l->text = gql_cli_read_file_as(cmd, r->supergraph, &len))) {
    loaded_free(l);
    return GQL_EIO;
  }
  const char *err = NULL;
  int rc = gql_supergraph_load(l->text, len, &l->supergraph, l->arena, &err);
  if (rc) {
    /* FILE:LINE:COLUMN: message when the reader says where */
    bool at = err && err[0] >= '0' && err[0] <= '9';
    fprintf(stderr, "%s: %s:%s%s\n", cmd, gql_cli_display_name(r->supergraph),
            at ? "" : " ", err ? err : gql_strerror(rc));
    loaded_free(l);
    return rc < 0 ? rc : GQL_EINVAL;
  }
  /* the executor finds the supergraph in ud (gql_cli_generation_supergraph) */
  *out = (gql_http_generation){
      .schema = l->supergraph->api, .ud = l, .release = loaded_free};
  return 0;
}

const gql_supergraph *gql_cli_generation_supergraph(void *ud) {
  return ud ? ((loaded *)ud)->supergraph : NULL;
}

/* The settings again, as at start: the file, then the flags over it. */
static gql_settings *reparse(const gql_cli_reload *r) {
  gql_settings *st = gql_cli_settings_load(r->cmd, r->argc, r->argv);
  for (int i = 1; st && i < r->argc; i++) {
    int rc = gql_cli_server_flag(r->cmd, st, r->argc, r->argv, &i);
    if (rc == 0)
      rc = r->flag(st, r->argc, r->argv, &i);
    if (rc <= 0) {
      gql_settings_free(st);
      return NULL;
    }
  }
  return st;
}

static bool same(const char *a, const char *b) {
  return a == b || (a && b && strcmp(a, b) == 0);
}

/* Says which changed settings wait for a restart. */
static void warn_fixed(const gql_cli_reload *r, const gql_http_options *o,
                       const gql_settings *st) {
  const gql_http_options *f = &r->first;
  struct {
    bool changed;
    const char *what;
  } fixed[] = {
      {!same(o->host, f->host) || o->port != f->port ||
           !same(o->unix_path, f->unix_path),
       "the listen address"},
      {o->threads != f->threads, "the thread count"},
      {!same(o->path, f->path), "the endpoint path"},
      {r->schema && !same(st->serve.schema, r->schema), "the schema path"},
      {r->data && !same(st->serve.data, r->data), "the data path"},
      {r->supergraph && !same(st->gateway.supergraph, r->supergraph),
       "the supergraph path"},
  };
  for (size_t i = 0; i < GQL_ARRAY_LEN(fixed); i++)
    if (fixed[i].changed)
      fprintf(stderr,
              "%s: warning: reload: %s changed; ignored until a restart\n",
              r->cmd, fixed[i].what);
}

static int load(void *ud, gql_http_generation *out) {
  gql_cli_reload *r = ud;
  gql_http_options o = r->first;
  if (r->config) {
    gql_settings *st = reparse(r);
    gql_http_options now = {0};
    if (!st || !gql_cli_http_options(r->cmd, st, &now)) {
      gql_settings_free(st);
      return GQL_EINVAL;
    }
    warn_fixed(r, &now, st);
    o.max_depth = now.max_depth;
    o.max_height = now.max_height;
    o.max_aliases = now.max_aliases;
    o.max_root_fields = now.max_root_fields;
    o.no_introspection = now.no_introspection;
    gql_settings_free(st);
  }
  int rc = r->supergraph ? gateway_files(r, out) : serve_files(r, out);
  if (rc < 0)
    return rc;
  out->max_depth = o.max_depth;
  out->max_height = o.max_height;
  out->max_aliases = o.max_aliases;
  out->max_root_fields = o.max_root_fields;
  out->no_introspection = o.no_introspection;
  return 0;
}

int gql_cli_reload_first(gql_cli_reload *r, gql_http_generation *out) {
  return r->supergraph ? gateway_files(r, out) : serve_files(r, out);
}

void gql_cli_reload_init(gql_cli_reload *r, const gql_settings *st,
                         const gql_http_options *o) {
  memcpy(&r->first, o, sizeof r->first);
  r->config = st->file;
  unsigned n = 0;
  const char *files[] = {r->schema, r->data, r->supergraph, r->config};
  for (size_t i = 0; i < GQL_ARRAY_LEN(files); i++)
    if (files[i])
      r->watch[n++] = files[i];
  r->rl = (gql_http_reload){.ud = r,
                            .load = load,
                            .watch = r->watch,
                            .nwatch = n,
                            .debounce_ms = r->debounce_ms};
}
