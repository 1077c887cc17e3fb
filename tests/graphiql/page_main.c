/* Prints the GraphiQL page for the browser test (until the server serves
 * it): graphiql_page [ASSETS_BASE [ENDPOINT [TITLE [DEFAULT_QUERY]]]]. */
#include "graphiql/graphiql.h"

#include <stdio.h>

int main(int argc, char **argv) {
  gql_graphiql_options o = {.assets = argc > 1 ? argv[1] : NULL,
                            .endpoint = argc > 2 ? argv[2] : NULL,
                            .title = argc > 3 ? argv[3] : NULL,
                            .default_query = argc > 4 ? argv[4] : NULL};
  gql_buf b;
  gql_buf_init(&b, NULL);
  int rc = gql_graphiql_page(&o, &b);
  if (rc < 0) {
    fprintf(stderr, "graphiql_page: %s\n", gql_strerror(rc));
    return 1;
  }
  fwrite(b.data, 1, b.len, stdout);
  gql_buf_free(&b);
  return 0;
}
