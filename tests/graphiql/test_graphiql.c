/* The GraphiQL page: where its assets come from, and that what is injected
 * cannot break out of the HTML, the attribute or the script it lands in. */
#include "graphiql/graphiql.h"

#include <criterion/criterion.h>

static char *page(const gql_graphiql_options *o, int *rc) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  *rc = gql_graphiql_page(o, &b);
  const char *s = gql_buf_cstr(&b);
  char *copy = s ? strdup(s) : NULL;
  gql_buf_free(&b);
  return copy;
}

Test(graphiql, loads_the_pinned_bundle_from_the_cdn_by_default) {
  int rc;
  char *p = page(NULL, &rc);
  cr_assert_eq(rc, 0);
  cr_assert(strstr(p, "href=\"https://unpkg.com/@graphql-yoga/graphiql@4.5.0/"
                      "dist/graphiql.css\""));
  cr_assert(strstr(p, "src=\"https://unpkg.com/@graphql-yoga/graphiql@4.5.0/"
                      "dist/yoga-graphiql.umd.js\""));
  cr_assert(strstr(p, "var base = \"https://unpkg.com/@graphql-yoga/"
                      "graphiql@4.5.0/dist/\""));
  cr_assert(strstr(p, "endpoint: \"/graphql\""));
  cr_assert(strstr(p, "<title>gql GraphiQL</title>"));
  free(p);
}

Test(graphiql, a_local_folder_base_and_endpoint) {
  gql_graphiql_options o = {.assets = "/graphiql/assets",
                            .endpoint = "http://127.0.0.1:4000/graphql"};
  int rc;
  char *p = page(&o, &rc);
  cr_assert_eq(rc, 0);
  cr_assert(strstr(p, "href=\"/graphiql/assets/graphiql.css\""),
            "the missing '/' is added");
  cr_assert(strstr(p, "src=\"/graphiql/assets/yoga-graphiql.umd.js\""));
  cr_assert(strstr(p, "endpoint: \"http://127.0.0.1:4000/graphql\""));
  free(p);
}

Test(graphiql, injected_text_cannot_leave_its_context) {
  gql_graphiql_options o = {.title = "</script><script>alert(1)</script>&\"'",
                            .default_query =
                                "{ a } </script><!-- \xe2\x80\xa8 \"\\ \n"};
  int rc;
  char *p = page(&o, &rc);
  cr_assert_eq(rc, 0);
  cr_assert_null(strstr(p, "<script>alert(1)"));
  cr_assert_null(strstr(p, "</script><!--"));
  cr_assert_null(strstr(p, "\xe2\x80\xa8"));
  /* In <title>: entities. */
  cr_assert(strstr(p, "<title>&lt;/script&gt;&lt;script&gt;alert(1)&lt;/"
                      "script&gt;&amp;&quot;&#39;</title>"));
  /* In the script: the query as a JS string with \u escapes. */
  cr_assert(strstr(p, "defaultQuery: \"{ a } \\u003c/script\\u003e\\u003c!-- "
                      "\\u2028 \\\"\\\\ \\u000a\""),
            "%s", strstr(p, "defaultQuery"));
  /* Exactly the page's own four script tags. */
  int n = 0;
  for (const char *s = p; (s = strstr(s, "</script>")); s++)
    n++;
  cr_assert_eq(n, 3);
  free(p);
}

Test(graphiql, refuses_urls_that_could_carry_markup_or_scripts) {
  static const char *bad[] = {"javascript:alert(1)",
                              "//evil.example/",
                              "/a\"onload=\"x",
                              "/a b",
                              "/a<b",
                              "https://x/\\",
                              "data:text/html,x",
                              "",
                              NULL};
  for (int i = 0; bad[i]; i++) {
    gql_graphiql_options o = {.assets = bad[i]};
    int rc;
    char *p = page(&o, &rc);
    cr_assert_eq(rc, GQL_EINVAL, "assets %s accepted", bad[i]);
    free(p);
    o = (gql_graphiql_options){.endpoint = bad[i]};
    p = page(&o, &rc);
    cr_assert_eq(rc, GQL_EINVAL, "endpoint %s accepted", bad[i]);
    free(p);
  }
  gql_graphiql_options o = {.title = "\xff"};
  int rc;
  free(page(&o, &rc));
  cr_assert_eq(rc, GQL_EINVAL, "invalid UTF-8 refused");
}

Test(graphiql, serves_only_the_listed_asset_files) {
  cr_assert_str_eq(gql_graphiql_asset_type(GQL_STR("graphiql.css")),
                   "text/css; charset=utf-8");
  cr_assert_str_eq(gql_graphiql_asset_type(
                       GQL_STR("monacoeditorwork/json.worker.bundle.js")),
                   "text/javascript; charset=utf-8");
  static const char *bad[] = {"../graphiql.css",
                              "/graphiql.css",
                              "",
                              "VERSION",
                              "monacoeditorwork/../../etc/passwd",
                              NULL};
  for (int i = 0; bad[i]; i++)
    cr_assert_null(gql_graphiql_asset_type(gql_cstr(bad[i])), "%s", bad[i]);
  cr_assert_null(gql_graphiql_asset_type((gql_str){"graphiql.css\0x", 14}));
}
