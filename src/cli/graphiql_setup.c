/* GraphiQL from gql serve and gql gateway: the page (src/graphiql) at the
 * GraphQL endpoint for browsers, with its assets from a base URL (by
 * default the pinned version on a public CDN) or from a local folder
 * (scripts/graphiql-assets.sh fills it) read into memory at start and
 * served at GQL_GRAPHIQL_LOCAL_PATH. --no-graphiql or graphiql.enabled:
 * false turns it off. */
#include "cli.h"
#include "graphiql/graphiql.h"

#include <stdlib.h>

struct gql_cli_graphiql {
  gql_http_page pages[8];
  char *bodies[8];
  gql_buf page;
};

int gql_cli_graphiql_flag(const char *cmd, gql_settings *st, int argc,
                          char **argv, int *i) {
  if (strcmp(argv[*i], "--no-graphiql") == 0) {
    st->graphiql = GQL_CFG_FALSE;
    return 1;
  }
  static const char *const with_value[] = {"--graphiql-assets"};
  const char *v;
  int taken = gql_cli_take_value(cmd, argc, argv, i, with_value, 1, &v);
  if (taken > 0)
    st->graphiql_assets = v;
  return taken;
}

static bool is_url(const char *s) {
  return strncmp(s, "http://", 7) == 0 || strncmp(s, "https://", 8) == 0;
}

bool gql_cli_graphiql_init(const char *cmd, const gql_settings *st,
                           gql_cli_graphiql **out, gql_http_options *o) {
  *out = NULL;
  if (st->graphiql == GQL_CFG_FALSE)
    return true;
  gql_cli_graphiql *g = calloc(1, sizeof *g);
  if (!g) {
    fprintf(stderr, "%s: out of memory\n", cmd);
    return false;
  }
  gql_buf_init(&g->page, NULL);
  *out = g;
  const char *assets = st->graphiql_assets;
  bool local = assets && !is_url(assets);
  uint32_t n = 0;
  if (local) { /* the files, read once; served from memory */
    char path[4096];
    for (const char *const *f = gql_graphiql_files; *f; f++) {
      size_t len;
      snprintf(path, sizeof path, "%s/%s", assets, *f);
      if (!(g->bodies[n] = gql_cli_read_file_as(cmd, path, &len))) {
        fprintf(stderr,
                "%s: --graphiql-assets %s: fill the folder with "
                "scripts/graphiql-assets.sh %s\n",
                cmd, assets, assets);
        return false;
      }
      const char *url =
          gql_arena_sprintf(st->arena, "%s%s", GQL_GRAPHIQL_LOCAL_PATH, *f);
      if (!url) {
        fprintf(stderr, "%s: out of memory\n", cmd);
        return false;
      }
      g->pages[n] =
          (gql_http_page){.path = url,
                          .content_type = gql_graphiql_asset_type(gql_cstr(*f)),
                          .body = g->bodies[n],
                          .len = len};
      n++;
    }
  }
  gql_graphiql_options go = {.assets = local ? GQL_GRAPHIQL_LOCAL_PATH : assets,
                             .endpoint = st->supergraph.path};
  if (gql_graphiql_page(&go, &g->page) < 0) {
    fprintf(stderr, "%s: --graphiql-assets '%s': not a usable base URL\n", cmd,
            assets ? assets : "");
    return false;
  }
  g->pages[n++] = (gql_http_page){.content_type = "text/html; charset=utf-8",
                                  .body = g->page.data,
                                  .len = g->page.len};
  o->pages = g->pages;
  o->npages = n;
  return true;
}

void gql_cli_graphiql_free(gql_cli_graphiql *g) {
  if (!g)
    return;
  for (size_t i = 0; i < GQL_ARRAY_LEN(g->bodies); i++)
    free(g->bodies[i]);
  gql_buf_free(&g->page);
  free(g);
}
