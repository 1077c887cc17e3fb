/* subscription.mode.passthrough (src/config/keys_subscription.c): each
 * subgraph's subscription protocol and path, Router's shape, with
 * FILE:LINE:COLUMN errors. */
#include "config/config.h"

#include <criterion/criterion.h>
#include <stdlib.h>

static gql_settings *load_ok(const char *text) {
  gql_settings *st = NULL;
  char *errors = NULL;
  int rc = gql_settings_load("c.yaml", text, strlen(text), NULL, &st, &errors);
  cr_assert_eq(rc, 0, "refused: %s", errors ? errors : "");
  return st;
}

static void assert_error(const char *text, const char *line) {
  gql_settings *st = NULL;
  char *errors = NULL;
  int rc = gql_settings_load("c.yaml", text, strlen(text), NULL, &st, &errors);
  cr_assert_lt(rc, 0, "accepted: %s", text);
  cr_assert(errors && strstr(errors, line), "wanted '%s' in:\n%s", line,
            errors ? errors : "");
  free(errors);
}

Test(subscription_mode, subgraph_entries_over_all) {
  gql_settings *st = load_ok("subscription:\n"
                             "  mode:\n"
                             "    passthrough:\n"
                             "      all:\n"
                             "        path: /ws\n"
                             "      subgraphs:\n"
                             "        reviews:\n"
                             "          protocol: sse\n"
                             "        stock:\n"
                             "          protocol: graphql_ws\n"
                             "          path: /graphql/stream\n");
  const gql_cfg_subscription *s = &st->subscription;
  cr_assert_eq(s->mode.nsubgraphs, 2);
  gql_cfg_sub_passthrough r = gql_cfg_sub_passthrough_of(s, GQL_STR("reviews"));
  cr_assert_eq(r.protocol, GQL_CFG_SUB_SSE);
  cr_assert_str_eq(r.path, "/ws"); /* all's, unset in its entry */
  r = gql_cfg_sub_passthrough_of(s, GQL_STR("stock"));
  cr_assert_eq(r.protocol, GQL_CFG_SUB_GRAPHQL_WS);
  cr_assert_str_eq(r.path, "/graphql/stream");
  r = gql_cfg_sub_passthrough_of(s, GQL_STR("other"));
  cr_assert_eq(r.protocol, GQL_CFG_SUB_PROTOCOL_UNSET);
  cr_assert_str_eq(r.path, "/ws");
  gql_settings_free(st);
}

Test(subscription_mode, all_alone_applies_to_every_subgraph) {
  gql_settings *st = load_ok("subscription:\n"
                             "  mode:\n"
                             "    passthrough:\n"
                             "      all:\n"
                             "        protocol: sse\n");
  gql_cfg_sub_passthrough r =
      gql_cfg_sub_passthrough_of(&st->subscription, GQL_STR("any"));
  cr_assert_eq(r.protocol, GQL_CFG_SUB_SSE);
  cr_assert_null(r.path);
  gql_settings_free(st);
}

Test(subscription_mode, nothing_set_is_graphql_ws_at_the_url) {
  gql_settings *st = load_ok("subscription:\n  enabled: true\n");
  gql_cfg_sub_passthrough r =
      gql_cfg_sub_passthrough_of(&st->subscription, GQL_STR("a"));
  cr_assert_eq(r.protocol, GQL_CFG_SUB_PROTOCOL_UNSET);
  cr_assert_null(r.path);
  gql_settings_free(st);
}

Test(subscription_mode, bad_values_point_at_their_place) {
  assert_error("subscription:\n  mode:\n    passthrough:\n      all:\n"
               "        protocol: multipart\n",
               "c.yaml:5:19: subscription.mode.passthrough.all.protocol needs "
               "graphql_ws or sse, not 'multipart'");
  assert_error("subscription:\n  mode:\n    passthrough:\n      subgraphs:\n"
               "        a:\n          protocol: graphql_transport_ws\n",
               "c.yaml:6:21: subscription.mode.passthrough.subgraphs.a."
               "protocol: graphql_transport_ws (the legacy "
               "subscriptions-transport-ws) is not supported by gql");
  assert_error("subscription:\n  mode:\n    passthrough:\n      subgraphs:\n"
               "        a:\n          path: graphql\n",
               "c.yaml:6:17: subscription.mode.passthrough.subgraphs.a.path "
               "must be a path such as /graphql");
  assert_error("subscription:\n  mode:\n    passthrough:\n      subgraphs:\n"
               "        a:\n          path: \"/a b\"\n",
               "must be a path such as /graphql");
  assert_error("subscription:\n  mode:\n    passthrough:\n      subgraphs:\n"
               "        a:\n          protocol: sse\n        a:\n"
               "          protocol: sse\n",
               "c.yaml:7:9: subgraph 'a' is given twice");
  assert_error("subscription:\n  mode:\n    passthrough:\n      subgraphs:\n"
               "        a:\n          heartbeat_interval: enable\n",
               "c.yaml:6:11: unknown key 'heartbeat_interval' in "
               "subscription.mode.passthrough.subgraphs.a; expected one of: "
               "protocol, path");
  assert_error("subscription:\n  mode:\n    callback:\n"
               "      public_url: http://x/\n",
               "c.yaml:4:7: subscription.mode.callback (Router's HTTP callback "
               "mode) is not supported by gql");
  assert_error("subscription:\n  mode:\n    passthrough:\n"
               "      subgraphs: [a]\n",
               "subscription.mode.passthrough.subgraphs needs a map of "
               "subgraph names");
}

/* gql_cfg_unknown_subgraphs (src/config/subgraph_names.c): the entries
 * naming no subgraph of the supergraph, passthrough's and headers', each a
 * FILE:LINE:COLUMN line listing the supergraph's subgraphs. */
Test(subscription_mode, unknown_subgraph_names_are_warned) {
  gql_settings *st = load_ok("subscription:\n"
                             "  mode:\n"
                             "    passthrough:\n"
                             "      subgraphs:\n"
                             "        reviews:\n"
                             "          protocol: sse\n"
                             "        revews:\n"
                             "          protocol: sse\n"
                             "headers:\n"
                             "  subgraphs:\n"
                             "    products:\n"
                             "      request:\n"
                             "        - propagate:\n"
                             "            named: x-a\n"
                             "    prodcts:\n"
                             "      request:\n"
                             "        - propagate:\n"
                             "            named: x-a\n");
  const gql_str names[] = {GQL_STR("reviews"), GQL_STR("products")};
  char *lines = NULL;
  int n = gql_cfg_unknown_subgraphs(st, names, 2, &lines);
  cr_assert_eq(n, 2);
  cr_assert_str_eq(lines,
                   "c.yaml:7:9: subscription.mode.passthrough.subgraphs.revews "
                   "names no subgraph of the supergraph (reviews, products): "
                   "it applies to none\n"
                   "c.yaml:15:5: headers.subgraphs.prodcts names no subgraph "
                   "of the supergraph (reviews, products): it applies to "
                   "none\n");
  free(lines);
  /* every name known: nothing */
  const gql_str more[] = {GQL_STR("reviews"), GQL_STR("products"),
                          GQL_STR("revews"), GQL_STR("prodcts")};
  lines = (char *)"x";
  cr_assert_eq(gql_cfg_unknown_subgraphs(st, more, 4, &lines), 0);
  cr_assert_null(lines);
  gql_settings_free(st);
}

Test(subscription_mode, no_subgraph_entries_no_warning) {
  gql_settings *st = load_ok("subscription:\n"
                             "  mode:\n"
                             "    passthrough:\n"
                             "      all:\n"
                             "        protocol: sse\n");
  char *lines = (char *)"x";
  cr_assert_eq(gql_cfg_unknown_subgraphs(st, NULL, 0, &lines), 0);
  cr_assert_null(lines);
  gql_settings_free(st);
}
