/* The decisions the server and the gateway will call: CORS answers and
 * header propagation, from configuration text. */
#include "config/config.h"
#include "config/cors.h"
#include "config/headers.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

static gql_settings *load(const char *text) {
  gql_settings *st = NULL;
  char *errors = NULL;
  int rc = gql_settings_load("c.yaml", text, strlen(text), NULL, &st, &errors);
  cr_assert_eq(rc, 0, "refused: %s", errors ? errors : "");
  return st;
}

static char *load_errors(const char *text) {
  gql_settings *st = NULL;
  char *errors = NULL;
  cr_assert_lt(
      gql_settings_load("c.yaml", text, strlen(text), NULL, &st, &errors), 0,
      "accepted: %s", text);
  return errors;
}

static gql_cors *cors_of(gql_settings *st) {
  gql_cors *c = NULL;
  char why[200];
  cr_assert_eq(gql_cors_build(&st->cors, &c, why, sizeof why), 0, "%s", why);
  return c;
}

/* The value of header `name` in the answer, or NULL. */
static const char *hv(const gql_cors_answer *a, const char *name) {
  static char buf[512];
  for (uint32_t i = 0; i < a->nheaders; i++)
    if (gql_str_eq_cstr(a->headers[i].name, name)) {
      snprintf(buf, sizeof buf, "%.*s", (int)a->headers[i].value.len,
               a->headers[i].value.ptr);
      return buf;
    }
  return NULL;
}

static gql_cors_request preflight(const char *origin) {
  return (gql_cors_request){GQL_STR("OPTIONS"), gql_cstr(origin),
                            GQL_STR("POST"),
                            GQL_STR("content-type, authorization")};
}

static gql_cors_request actual(const char *origin) {
  return (gql_cors_request){
      GQL_STR("POST"), gql_cstr(origin), {NULL, 0}, {NULL, 0}};
}

Test(cors, preflight_from_an_allowed_origin_gets_204_and_every_header) {
  gql_settings *st = load("cors:\n"
                          "  allow_credentials: true\n"
                          "  allow_headers: [content-type, authorization]\n"
                          "  expose_headers: [x-request-id]\n"
                          "  methods: [GET, POST]\n"
                          "  max_age: 10m\n"
                          "  policies:\n"
                          "    - origins: [https://app.example.com]\n");
  gql_cors *c = cors_of(st);
  gql_cors_request rq = preflight("https://app.example.com");
  gql_cors_answer a;
  gql_cors_decide(c, &rq, &a);
  cr_assert_eq(a.kind, GQL_CORS_PREFLIGHT);
  cr_assert_eq(a.status, 204);
  cr_assert(a.allowed);
  cr_assert_str_eq(hv(&a, "access-control-allow-origin"),
                   "https://app.example.com");
  cr_assert_str_eq(hv(&a, "access-control-allow-credentials"), "true");
  cr_assert_str_eq(hv(&a, "access-control-allow-methods"), "GET, POST");
  cr_assert_str_eq(hv(&a, "access-control-allow-headers"),
                   "content-type, authorization");
  cr_assert_str_eq(hv(&a, "access-control-max-age"), "600");
  cr_assert_str_eq(hv(&a, "vary"), "Origin");
  cr_assert_null(hv(&a, "access-control-expose-headers"));
  rq = actual("https://app.example.com");
  gql_cors_decide(c, &rq, &a);
  cr_assert_eq(a.kind, GQL_CORS_ACTUAL);
  cr_assert_str_eq(hv(&a, "access-control-expose-headers"), "x-request-id");
  cr_assert_null(hv(&a, "access-control-allow-methods"));
  gql_cors_free(c);
  gql_settings_free(st);
}

Test(cors, an_origin_not_allowed_gets_no_cors_headers) {
  gql_settings *st = load("cors:\n  origins: [https://app.example.com]\n");
  gql_cors *c = cors_of(st);
  const char *others[] = {"https://evil.example.com",
                          "https://app.example.com.evil", "null",
                          "https://APP.example.com"};
  for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
    gql_cors_answer a;
    gql_cors_request rq = preflight(others[i]);
    gql_cors_decide(c, &rq, &a);
    cr_assert_eq(a.kind, GQL_CORS_PREFLIGHT, "a preflight is never run");
    cr_assert_not(a.allowed, "%s", others[i]);
    for (uint32_t j = 0; j < a.nheaders; j++)
      cr_assert_not(a.headers[j].name.len > 15 &&
                        !memcmp(a.headers[j].name.ptr, "access-control-", 15),
                    "%s got %.*s", others[i], (int)a.headers[j].name.len,
                    a.headers[j].name.ptr);
    cr_assert_str_eq(hv(&a, "vary"), "Origin");
  }
  /* no Origin: not a CORS request at all */
  gql_cors_request rq = actual(NULL);
  rq.origin = (gql_str){NULL, 0};
  gql_cors_answer a;
  gql_cors_decide(c, &rq, &a);
  cr_assert_eq(a.kind, GQL_CORS_NONE);
  cr_assert_eq(a.nheaders, 0);
  gql_cors_free(c);
  gql_settings_free(st);
}

Test(cors, match_origins_policies_in_order_and_defaults) {
  gql_settings *st =
      load("cors:\n"
           "  methods: [POST]\n"
           "  policies:\n"
           "    - origins: [https://studio.apollographql.com]\n"
           "    - match_origins: [\"^https://(dev|www)\\\\.my-app\\\\.com$\"]\n"
           "      allow_credentials: true\n"
           "      allow_headers: [x-web-version]\n"
           "      methods: [GET, DELETE]\n");
  gql_cors *c = cors_of(st);
  gql_cors_answer a;
  gql_cors_request rq = preflight("https://dev.my-app.com");
  gql_cors_decide(c, &rq, &a);
  cr_assert(a.allowed);
  cr_assert_str_eq(hv(&a, "access-control-allow-methods"), "GET, DELETE");
  cr_assert_str_eq(hv(&a, "access-control-allow-headers"), "x-web-version");
  cr_assert_str_eq(hv(&a, "access-control-allow-credentials"), "true");
  rq = preflight("https://studio.apollographql.com");
  gql_cors_decide(c, &rq, &a);
  cr_assert_str_eq(hv(&a, "access-control-allow-methods"), "POST");
  cr_assert_null(hv(&a, "access-control-allow-credentials"));
  /* no allow_headers: the request's are mirrored, and Vary says so */
  cr_assert_str_eq(hv(&a, "access-control-allow-headers"),
                   "content-type, authorization");
  cr_assert_str_eq(hv(&a, "vary"), "Origin, Access-Control-Request-Headers");
  rq = preflight("https://dev.my-app.com.evil.org");
  gql_cors_decide(c, &rq, &a);
  cr_assert_not(a.allowed);
  gql_cors_free(c);
  gql_settings_free(st);
  /* cors: {} allows Apollo Studio only, as Router */
  st = load("cors: {}\n");
  c = cors_of(st);
  rq = preflight("https://studio.apollographql.com");
  gql_cors_decide(c, &rq, &a);
  cr_assert(a.allowed);
  cr_assert_str_eq(hv(&a, "access-control-allow-methods"),
                   "GET, POST, OPTIONS");
  gql_cors_free(c);
  gql_settings_free(st);
  /* no section: CORS is off */
  st = load("supergraph: {}\n");
  c = cors_of(st);
  cr_assert_null(c);
  gql_cors_decide(c, &rq, &a);
  cr_assert_eq(a.kind, GQL_CORS_NONE);
  gql_settings_free(st);
}

Test(cors, allow_any_origin_answers_star_even_for_null) {
  gql_settings *st = load("cors:\n  allow_any_origin: true\n");
  gql_cors *c = cors_of(st);
  gql_cors_answer a;
  gql_cors_request rq = preflight("null");
  gql_cors_decide(c, &rq, &a);
  cr_assert(a.allowed);
  cr_assert_str_eq(hv(&a, "access-control-allow-origin"), "*");
  cr_assert_null(hv(&a, "vary"));
  gql_cors_free(c);
  gql_settings_free(st);
}

Test(cors, configurations_browsers_would_refuse_are_errors) {
  struct {
    const char *text, *want;
  } cases[] = {
      {"cors:\n  origins: [\"*\"]\n", "use allow_any_origin: true"},
      {"cors:\n  origins: [https://a.com/]\n", "ends with '/'"},
      {"cors:\n  allow_any_origin: true\n  allow_credentials: true\n",
       "allow_credentials cannot go with allow_any_origin"},
      {"cors:\n  allow_credentials: true\n  allow_headers: [\"*\"]\n",
       "allow_credentials cannot go with allow_headers"},
      {"cors:\n  match_origins: [\"(\"]\n", "bad match_origins regex"},
      {"cors:\n  origins: [https://a.com]\n  policies: []\n",
       "give either policies"},
      {"cors:\n  methods: [\"GET POST\"]\n", "is not a valid name"},
      {"cors:\n  policies:\n    - origins: [a]\n      private_network_access: "
       "{}\n",
       "unknown key 'private_network_access'"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char *e = load_errors(cases[i].text);
    cr_assert(strstr(e, cases[i].want), "case %zu: %s", i, e);
    free(e);
  }
}

/* ---------------------------------------------------------------- headers */

static const gql_header client[] = {
    {GQL_STR("Authorization"), GQL_STR("Bearer abc")},
    {GQL_STR("X-Trace-Id"), GQL_STR("t1")},
    {GQL_STR("x-trace-span"), GQL_STR("s1")},
    {GQL_STR("X-Multi"), GQL_STR("a")},
    {GQL_STR("x-multi"), GQL_STR("b")},
    {GQL_STR("Content-Length"), GQL_STR("99")},
    {GQL_STR("Connection"), GQL_STR("keep-alive")},
    {GQL_STR("Host"), GQL_STR("gql.example")},
    {GQL_STR("X-Internal-Secret"), GQL_STR("no")},
};

/* "name: value" lines of the headers for subgraph `sub`. */
static char *apply(const char *text, const char *sub,
                   const gql_json_value *claims, const gql_json_value *body) {
  gql_settings *st = load(text);
  gql_header_policy *p = NULL;
  char why[200];
  cr_assert_eq(gql_header_policy_build(&st->headers, &p, why, sizeof why), 0);
  gql_arena *a = gql_arena_new(NULL);
  gql_header_input in = {client, sizeof client / sizeof *client, claims, body};
  gql_header_list out = {0};
  cr_assert_eq(gql_header_rules_apply(gql_header_policy_for(p, gql_cstr(sub)),
                                      &in, &out, a),
               0);
  char *s = calloc(1, 4096);
  for (uint32_t i = 0; i < out.count; i++)
    snprintf(s + strlen(s), 4096 - strlen(s), "%.*s: %.*s\n",
             (int)out.items[i].name.len, out.items[i].name.ptr,
             (int)out.items[i].value.len, out.items[i].value.ptr);
  gql_arena_free(a);
  gql_header_policy_free(p);
  gql_settings_free(st);
  return s;
}

Test(headers, propagate_named_rename_and_default) {
  char *s = apply("headers:\n  all:\n    request:\n"
                  "      - propagate: {named: authorization}\n"
                  "      - propagate: {named: x-multi, rename: x-both}\n"
                  "      - propagate: {named: x-absent, default: d}\n"
                  "      - propagate: {named: x-absent2}\n",
                  "any", NULL, NULL);
  cr_assert_str_eq(s, "authorization: Bearer abc\nx-both: a\nx-both: b\n"
                      "x-absent: d\n");
  free(s);
}

Test(headers, propagate_matching_never_sends_hop_by_hop_headers) {
  char *s = apply("headers:\n  all:\n    request:\n"
                  "      - propagate: {matching: \".*\"}\n",
                  "any", NULL, NULL);
  cr_assert_str_eq(s, "Authorization: Bearer abc\nX-Trace-Id: t1\n"
                      "x-trace-span: s1\nX-Multi: a\nx-multi: b\n"
                      "X-Internal-Secret: no\n");
  free(s);
  s = apply("headers:\n  all:\n    request:\n"
            "      - propagate: {matching: \"^x-trace-\"}\n",
            "any", NULL, NULL);
  cr_assert_str_eq(s, "X-Trace-Id: t1\nx-trace-span: s1\n",
                   "patterns see names in lower case, as Router's do");
  free(s);
  s = apply("headers:\n  all:\n    request:\n"
            "      - propagate: {matching: \"^X-Trace-\"}\n",
            "any", NULL, NULL);
  cr_assert_str_eq(s, "");
  free(s);
}

Test(headers, insert_remove_and_subgraph_rules_after_all) {
  const char *cfg = "headers:\n"
                    "  all:\n"
                    "    request:\n"
                    "      - propagate: {matching: \"(?i)^x-\"}\n"
                    "      - remove: {matching: \"(?i)^x-internal-\"}\n"
                    "      - insert: {name: X-From, value: gql}\n"
                    "  subgraphs:\n"
                    "    products:\n"
                    "      request:\n"
                    "        - remove: {named: X-MULTI}\n"
                    "        - insert: {name: x-from, value: products}\n";
  char *s = apply(cfg, "reviews", NULL, NULL);
  cr_assert_str_eq(s, "X-Trace-Id: t1\nx-trace-span: s1\nX-Multi: a\n"
                      "x-multi: b\nx-from: gql\n");
  free(s);
  s = apply(cfg, "products", NULL, NULL);
  cr_assert_str_eq(s, "X-Trace-Id: t1\nx-trace-span: s1\nx-from: products\n");
  free(s);
}

Test(headers, insert_from_a_claim_or_the_body) {
  gql_arena *a = gql_arena_new(NULL);
  gql_json_value *claims, *body;
  const char *cj = "{\"sub\":\"u42\",\"n\":7,\"roles\":[\"a\",\"b\"],"
                   "\"evil\":\"x\\r\\ninjected: 1\"}";
  const char *bj = "{\"operationName\":\"Q\",\"extensions\":{\"c\":\"web\"}}";
  cr_assert_eq(gql_json_parse(a, cj, strlen(cj), NULL, &claims, NULL), 0);
  cr_assert_eq(gql_json_parse(a, bj, strlen(bj), NULL, &body, NULL), 0);
  char *s = apply("headers:\n  all:\n    request:\n"
                  "      - insert: {name: x-user, from_claim: sub}\n"
                  "      - insert: {name: x-n, from_claim: n}\n"
                  "      - insert: {name: x-roles, from_claim: roles}\n"
                  "      - insert: {name: x-evil, from_claim: evil, default: "
                  "safe}\n"
                  "      - insert: {name: x-none, from_claim: none}\n"
                  "      - insert: {name: x-op, path: $.operationName}\n"
                  "      - insert: {name: x-client, path: .extensions.c}\n"
                  "      - insert: {name: x-gone, path: a.b, default: dflt}\n",
                  "any", claims, body);
  cr_assert_str_eq(s, "x-user: u42\nx-n: 7\nx-roles: [\"a\",\"b\"]\n"
                      "x-evil: safe\nx-op: Q\nx-client: web\nx-gone: dflt\n");
  free(s);
  /* without claims (no token) only the defaults */
  s = apply("headers:\n  all:\n    request:\n"
            "      - insert: {name: x-user, from_claim: sub, default: anon}\n",
            "any", NULL, NULL);
  cr_assert_str_eq(s, "x-user: anon\n");
  free(s);
  gql_arena_free(a);
}

Test(headers, rules_gql_would_not_follow_are_errors) {
  struct {
    const char *rule, *want;
  } cases[] = {
      {"propagate: {named: Host}", "gql never sends 'host'"},
      {"propagate: {named: x-a, rename: content-length}",
       "gql never sends 'content-length'"},
      {"insert: {name: transfer-encoding, value: chunked}",
       "gql never sends 'transfer-encoding'"},
      {"insert: {name: x-a, value: \"a\\r\\nb: c\"}", "control characters"},
      {"propagate: {named: x-a, matching: x}", "either named or matching"},
      {"propagate: {matching: \"[\"}", "bad regex"},
      {"insert: {name: x-a}", "one of value, from_claim or path"},
      {"insert: {name: x-a, from_context: k}", "from_context is not supported"},
      {"insert: {name: x-a, path: \"$.a[0]\"}", "a path of names"},
      {"remove: {}", "either named or matching"},
      {"rename: {named: x}", "unknown header rule 'rename'"},
      {"propagate: {named: \"bad name\"}", "is not a header name"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char text[400];
    snprintf(text, sizeof text, "headers:\n  all:\n    request:\n      - %s\n",
             cases[i].rule);
    char *e = load_errors(text);
    cr_assert(strstr(e, cases[i].want), "case %zu: %s", i, e);
    cr_assert(strstr(e, "c.yaml:4:"), "case %zu has its line: %s", i, e);
    free(e);
  }
}
