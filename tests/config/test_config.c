/* The configuration loader (src/config): keys into settings, errors with
 * FILE:LINE:COLUMN, ${env.NAME}, bounds. */
#include "config/config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

static const char *test_env(void *ud, const char *name) {
  (void)ud;
  if (!strcmp(name, "PORT"))
    return "4100";
  if (!strcmp(name, "SECRET"))
    return "s3";
  return NULL;
}

static gql_settings *load_ok(const char *text) {
  gql_settings_env e = {test_env, NULL};
  gql_settings *st = NULL;
  char *errors = NULL;
  int rc = gql_settings_load("/etc/gql/c.yaml", text, strlen(text), &e, &st,
                             &errors);
  cr_assert_eq(rc, 0, "refused: %s", errors ? errors : "");
  return st;
}

/* The error lines, which the test frees. */
static char *load_bad(const char *text) {
  gql_settings_env e = {test_env, NULL};
  gql_settings *st = NULL;
  char *errors = NULL;
  int rc = gql_settings_load("c.yaml", text, strlen(text), &e, &st, &errors);
  cr_assert_lt(rc, 0, "accepted: %s", text);
  cr_assert_null(st);
  cr_assert(errors);
  return errors;
}

static void assert_error(const char *text, const char *line) {
  char *errors = load_bad(text);
  cr_assert(strstr(errors, line), "wanted '%s' in:\n%s", line, errors);
  free(errors);
}

Test(config, router_sections_fill_the_settings) {
  gql_settings *st = load_ok("supergraph:\n"
                             "  listen: 0.0.0.0:${env.PORT}\n"
                             "  path: /api\n"
                             "  introspection: false\n"
                             "limits:\n"
                             "  max_depth: 12\n"
                             "  max_aliases: 30\n"
                             "  http_max_request_bytes: 2mib\n"
                             "  parser_max_tokens: 5000\n"
                             "authorization:\n"
                             "  require_authentication: true\n");
  cr_assert_str_eq(st->supergraph.listen.host, "0.0.0.0");
  cr_assert_eq(st->supergraph.listen.port, 4100);
  cr_assert_str_eq(st->supergraph.path, "/api");
  cr_assert_eq(st->supergraph.introspection, GQL_CFG_FALSE);
  cr_assert_eq(st->limits.max_depth, 12);
  cr_assert_eq(st->limits.max_aliases, 30);
  cr_assert_eq(st->limits.http_max_request_bytes, 2u << 20);
  cr_assert_eq(st->limits.parser_max_tokens, 5000);
  cr_assert_eq(st->limits.max_height, 0, "unset stays zero");
  cr_assert_eq(st->require_authentication, GQL_CFG_TRUE);
  gql_settings_free(st);
}

Test(config, gql_sections_and_relative_paths) {
  gql_settings *st = load_ok("server:\n"
                             "  threads: 3\n"
                             "  idle_timeout: 1m 30s\n"
                             "  request_timeout: 250ms\n"
                             "  shutdown_timeout: 2s\n"
                             "  document_cache: 8mib\n"
                             "  log_level: info\n"
                             "serve:\n"
                             "  schema: schema.graphql\n"
                             "  data: /abs/data.json\n"
                             "gateway:\n"
                             "  supergraph: sg/supergraph.graphql\n"
                             "  subgraph_timeout: 2s\n"
                             "  plan_cache: 2mib\n"
                             "trace:\n"
                             "  otlp: http://127.0.0.1:4318/v1/traces\n"
                             "  depth: -1\n"
                             "  variables: [a, b]\n");
  cr_assert_eq(st->server.threads, 3);
  cr_assert_eq(st->server.idle_timeout_ms, 90000);
  cr_assert_eq(st->server.request_timeout_ms, 250);
  cr_assert_eq(st->server.shutdown_timeout_ms, 2000);
  cr_assert_eq(st->server.document_cache_bytes, 8u << 20);
  cr_assert_eq(st->server.log_level, GQL_CFG_LOG_INFO);
  cr_assert_str_eq(st->serve.schema, "/etc/gql/schema.graphql");
  cr_assert_str_eq(st->serve.data, "/abs/data.json");
  cr_assert_str_eq(st->gateway.supergraph, "/etc/gql/sg/supergraph.graphql");
  cr_assert_eq(st->gateway.subgraph_timeout_ms, 2000);
  cr_assert_eq(st->gateway.plan_cache_bytes, 2u << 20);
  cr_assert(st->trace.depth_set);
  cr_assert_eq(st->trace.depth, -1);
  cr_assert_eq(st->trace.variables.count, 2);
  cr_assert_str_eq(st->trace.variables.items[1], "b");
  gql_settings_free(st);
}

Test(config, unknown_keys_and_wrong_types_point_at_their_place) {
  assert_error("supergraph:\n  lissen: x\n",
               "c.yaml:2:3: unknown key 'lissen' in supergraph; expected one "
               "of: listen, path, introspection");
  assert_error("server:\n  threads: many\n",
               "c.yaml:2:12: server.threads needs a number from 1 to 256");
  assert_error("server:\n  threads: \"2\"\n", "c.yaml:2:");
  assert_error("server:\n  idle_timeout: 30\n",
               "c.yaml:2:17: server.idle_timeout needs a duration with a unit");
  assert_error("supergraph:\n  introspection: yes\n",
               "supergraph.introspection needs true or false");
  assert_error("limits:\n  max_depth: 0\n",
               "limits.max_depth needs a number from 1 to 100000");
  assert_error("supergraph: [1]\n", "c.yaml:1:13: supergraph needs a map");
  assert_error("telemetry:\n  x: 1\n",
               "c.yaml:1:1: 'telemetry' (an Apollo Router section) is not "
               "supported by gql");
  assert_error("server:\n  threads: 1\n  threads: 2\n",
               "c.yaml:3:3: 'threads' is given twice");
  assert_error("- a\n- b\n", "the file needs a map of sections");
}

Test(config, env_expansion_with_defaults) {
  gql_settings *st = load_ok("supergraph:\n"
                             "  listen: ${env.HOST:-127.0.0.1}:${env.PORT}\n"
                             "  path: /${env.NONE:-gql}\n");
  cr_assert_str_eq(st->supergraph.listen.host, "127.0.0.1");
  cr_assert_eq(st->supergraph.listen.port, 4100);
  cr_assert_str_eq(st->supergraph.path, "/gql");
  gql_settings_free(st);
  assert_error("supergraph:\n  path: /${env.UNSET}\n",
               "c.yaml:2:9: environment variable UNSET is not set");
  assert_error("supergraph:\n  path: /${env.UNCLOSED\n",
               "must be followed by NAME}");
  /* a value without ${env. stays as written */
  st = load_ok("serve:\n  schema: /a/$HOME/${b}\n");
  cr_assert_str_eq(st->serve.schema, "/a/$HOME/${b}");
  gql_settings_free(st);
}

Test(config, listen_addresses) {
  gql_settings *st = gql_settings_new();
  gql_cfg_listen l = {0};
  const char *why;
  cr_assert(gql_settings_parse_listen(st, "[::1]:80", &l, &why));
  cr_assert_str_eq(l.host, "::1");
  cr_assert(gql_settings_parse_listen(st, ":0", &l, &why));
  cr_assert_str_eq(l.host, "0.0.0.0");
  cr_assert(gql_settings_parse_listen(st, "unix:/run/gql.sock", &l, &why));
  cr_assert_str_eq(l.unix_path, "/run/gql.sock");
  cr_assert_null(l.host);
  cr_assert_not(gql_settings_parse_listen(st, "::1:80", &l, &why));
  cr_assert_not(gql_settings_parse_listen(st, "localhost", &l, &why));
  cr_assert_not(gql_settings_parse_listen(st, "h:65536", &l, &why));
  cr_assert_not(gql_settings_parse_listen(st, "h:-1", &l, &why));
  cr_assert_not(gql_settings_parse_listen(st, "unix:", &l, &why));
  gql_settings_free(st);
}

Test(config, durations_as_router_writes_them) {
  uint64_t ms;
  cr_assert(gql_cfg_parse_duration_ms("30s", &ms) && ms == 30000);
  cr_assert(gql_cfg_parse_duration_ms("1h 2m 3s", &ms) && ms == 3723000);
  cr_assert(gql_cfg_parse_duration_ms("1m30s", &ms) && ms == 90000);
  cr_assert(gql_cfg_parse_duration_ms("250ms", &ms) && ms == 250);
  cr_assert(gql_cfg_parse_duration_ms("2days", &ms) && ms == 172800000);
  cr_assert_not(gql_cfg_parse_duration_ms("30", &ms));
  cr_assert_not(gql_cfg_parse_duration_ms("s", &ms));
  cr_assert_not(gql_cfg_parse_duration_ms("-1s", &ms));
  cr_assert_not(gql_cfg_parse_duration_ms("1 fortnight", &ms));
  cr_assert_not(gql_cfg_parse_duration_ms("", &ms));
}

Test(config, yaml_errors_aliases_tags_and_bounds) {
  assert_error("a: [1\nb: 2\n",
               "c.yaml:2:2: while parsing a flow sequence did not find "
               "expected ',' or ']'");
  assert_error("supergraph: &s {path: /x}\nserve: *s\n",
               "c.yaml:2:8: YAML aliases (*name) are not supported");
  assert_error("supergraph:\n  path: !!str /x\n",
               "YAML tags are not supported");
  assert_error("a: 1\n---\nb: 2\n", "only one YAML document is allowed");
  /* libfyaml 0.7.12 loops forever on this one (found by fuzz_config) */
  assert_error("a: 1\n%tel\xff\xffx: 1\n",
               "c.yaml:2:1: YAML directives (%YAML, %TAG) are not supported");
  assert_error("a: \"x\xffy\"\n", "c.yaml:1:6: not UTF-8");
  char deep[512] = "";
  for (int i = 0; i < 40; i++)
    strcat(deep, "[");
  assert_error(deep, "nested more than 32 levels deep");
  size_t big = GQL_CONFIG_MAX_BYTES + 1;
  char *text = malloc(big + 1);
  memset(text, '#', big);
  text[big] = 0;
  char *errors = load_bad(text);
  cr_assert(strstr(errors, "larger than"), "%s", errors);
  free(errors);
  free(text);
}

Test(config, an_empty_file_sets_nothing) {
  gql_settings *st = load_ok("");
  cr_assert_not(st->supergraph.listen.set);
  cr_assert_not(st->cors.set);
  gql_settings_free(st);
  st = load_ok("# only a comment\nsupergraph:\n");
  cr_assert_null(st->supergraph.path);
  gql_settings_free(st);
}

Test(config, jwt_section_as_router_has_it) {
  gql_settings *st = load_ok("authentication:\n"
                             "  router:\n"
                             "    jwt:\n"
                             "      header_name: X-Token\n"
                             "      header_value_prefix: JWT\n"
                             "      on_error: Continue\n"
                             "      jwks:\n"
                             "        - url: file://keys/jwks.json\n"
                             "          issuer: https://one\n"
                             "          audiences: [api]\n"
                             "          algorithms: [RS256, ES256]\n"
                             "          poll_interval: 30s\n"
                             "        - url: file:///abs/jwks.json\n"
                             "          issuers: [https://a, https://b]\n");
  cr_assert(st->jwt.set);
  cr_assert_eq(st->jwt.njwks, 2);
  cr_assert_str_eq(st->jwt.header_name, "x-token");
  cr_assert_str_eq(st->jwt.header_value_prefix, "JWT");
  cr_assert(st->jwt.on_error_continue);
  cr_assert_str_eq(st->jwt.jwks[0].url, "file:///etc/gql/keys/jwks.json");
  cr_assert_eq(st->jwt.jwks[0].issuers.count, 1);
  cr_assert_str_eq(st->jwt.jwks[0].issuers.items[0], "https://one");
  cr_assert_eq(st->jwt.jwks[0].algorithms.count, 2);
  cr_assert_eq(st->jwt.jwks[0].poll_interval_ms, 30000);
  cr_assert_str_eq(st->jwt.jwks[1].url, "file:///abs/jwks.json");
  cr_assert_eq(st->jwt.jwks[1].issuers.count, 2);
  gql_settings_free(st);
  assert_error("authentication:\n  router:\n    jwt:\n      jwks:\n"
               "        - url: https://idp/jwks.json\n",
               "gql reads file:// and http:// URLs");
  assert_error("authentication:\n  router:\n    jwt:\n      jwks:\n"
               "        - url: file:///k\n          algorithms: [EdDSA]\n",
               "unknown algorithm 'EdDSA'");
  assert_error("authentication:\n  router:\n    jwt:\n"
               "      header_value_prefix: \"Bearer x\"\n      jwks:\n"
               "        - url: file:///k\n",
               "header_value_prefix must not contain whitespace");
  assert_error("authentication:\n  router:\n    jwt: {}\n", "needs jwks");
}
