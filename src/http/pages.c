/* Pages the server answers itself (gql_http_options.pages): GraphiQL at
 * the GraphQL endpoint for a browser (graphql-yoga's rule: a GET whose
 * Accept lists text/html), and its asset files at their paths. The bodies
 * are the embedder's, in memory: no path is ever joined from request text. */
#include "http.h"

#include <strings.h>

/* Whether the Accept values list text/html without q=0. */
static bool wants_html(gql_str accept) {
  size_t i = 0;
  while (i < accept.len) {
    size_t end = i;
    while (end < accept.len && accept.ptr[end] != ',')
      end++;
    size_t s = i;
    while (s < end && (accept.ptr[s] == ' ' || accept.ptr[s] == '\t'))
      s++;
    size_t n = s;
    while (n < end && accept.ptr[n] != ';' && accept.ptr[n] != ' ')
      n++;
    if (n - s == 9 && strncasecmp(accept.ptr + s, "text/html", 9) == 0) {
      bool q0 = false;
      for (size_t k = n; k + 3 <= end; k++)
        if (strncasecmp(accept.ptr + k, "q=0", 3) == 0 &&
            (k + 3 == end || accept.ptr[k + 3] != '.' ||
             strspn(accept.ptr + k + 4, "0") >= end - k - 4))
          q0 = true;
      if (!q0)
        return true;
    }
    i = end + 1;
  }
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
