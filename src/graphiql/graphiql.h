/* The GraphiQL page, as graphql-yoga serves it: the prebuilt bundle of
 * @graphql-yoga/graphiql (GraphiQL 5 with React 19 and the Monaco editor's
 * workers, one UMD script, one stylesheet, three worker scripts) loaded from
 * a base URL: a public CDN by default, or a local folder that the server
 * serves (filled by scripts/graphiql-assets.sh from npm). The endpoint, the
 * title and the default query are injected escaped for where they land
 * (HTML text, attribute, or a JavaScript string in a <script>).
 *
 * No I/O here: the HTTP layer answers GET with Accept: text/html with
 * gql_graphiql_page(), and GET <assets path><file> for a file of
 * gql_graphiql_asset_type(). */
#ifndef GQL_GRAPHIQL_H
#define GQL_GRAPHIQL_H

#include "core/core.h"

/* The bundle's npm package and version; the CDN base for it. */
#define GQL_GRAPHIQL_PACKAGE "@graphql-yoga/graphiql"
#define GQL_GRAPHIQL_VERSION "4.5.0"
#define GQL_GRAPHIQL_CDN                                                       \
  "https://unpkg.com/" GQL_GRAPHIQL_PACKAGE "@" GQL_GRAPHIQL_VERSION "/dist/"
/* Where a server serves a local asset folder by default. */
#define GQL_GRAPHIQL_LOCAL_PATH "/graphiql/assets/"

typedef struct gql_graphiql_options {
  /* Base URL of the asset files: absolute http(s) URL or a path starting
   * with '/'; a missing final '/' is added (NULL: GQL_GRAPHIQL_CDN). */
  const char *assets;
  /* The GraphQL endpoint the page sends operations to: a path or an
   * http(s) URL (NULL: "/graphql"). */
  const char *endpoint;
  const char *title;         /* NULL: "gql GraphiQL" */
  const char *default_query; /* NULL: GraphiQL's own */
} gql_graphiql_options;

/* Appends the page to `out`. 0, or GQL_EINVAL when assets or endpoint is
 * not a URL of the accepted forms (quotes, angle brackets, backslashes,
 * spaces and control characters are refused) or a string is not UTF-8. */
int gql_graphiql_page(const gql_graphiql_options *o, gql_buf *out);

/* The asset files the page loads, relative to the base (NULL-terminated). */
extern const char *const gql_graphiql_files[];

/* The Content-Type to serve asset `rel` (relative to the base, e.g.
 * "graphiql.css") with, or NULL when it is not one of gql_graphiql_files:
 * a server serves nothing else from the folder (no path is ever joined
 * from request text, so no traversal). */
const char *gql_graphiql_asset_type(gql_str rel);

#endif
