/* Pages the server answers itself (gql_http_options.pages): GraphiQL at
 * the GraphQL endpoint for a browser (graphql-yoga's rule: a GET whose
 * Accept lists text/html), and its asset files at their paths. The bodies
 * are the embedder's, in memory: no path is ever joined from request text. */
#include "http.h"

/* Whether the Accept values list text/html without q=0. */
static bool wants_html(gql_str accept) {
  gql_str item;
  for (size_t i = 0; http_list_next(accept, &i, &item);)
    if (http_media_is(item, "text/html") && !http_accept_refused(item))
      return true;
  return false;
}

const gql_http_page *gql_http_page_for(const gql_http_request *r, bool is_get) {
  const gql_http_options *o = r->conn->x->opt;
  bool endpoint = http_str_is(r->path, o->path);
  for (uint32_t i = 0; i < o->npages; i++) {
    const gql_http_page *p = &o->pages[i];
    if (p->path ? http_str_is(r->path, p->path) : endpoint) {
      /* the endpoint's page: only for a browser's GET */
      const gql_http_conn *c = r->conn;
      if (!p->path &&
          (!is_get || !wants_html(http_str(c->accept.o.data, c->accept.o.len))))
        return NULL;
      return p;
    }
  }
  return NULL;
}
