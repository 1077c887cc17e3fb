/* The configuration a generation serves with (hot reload): the settings
 * of the file and flags as loaded for that generation, the JWT verifier
 * built from them (key sets read from their files then), and demand
 * control built on the generation's schema. Each generation of gql serve
 * and gql gateway owns one (reload.c); the server's first generation uses
 * the one made at start (gql_cli_hooks.first).
 *
 * The request hooks and the admission find the request's with
 * gql_http_request_generation: a request in flight keeps the settings it
 * started with, new requests get the new ones, and nothing is locked. */
#include "auth/auth.h"
#include "cli.h"

#include <stdlib.h>

gql_cli_live *gql_cli_live_new(const char *cmd, const gql_settings *st,
                               gql_settings *owned, uint64_t serial) {
  gql_cli_live *l = calloc(1, sizeof *l);
  if (!l) {
    fprintf(stderr, "%s: out of memory\n", cmd);
    gql_settings_free(owned);
    return NULL;
  }
  *l = (gql_cli_live){.serial = serial,
                      .st = st,
                      .owned = owned,
                      .require = st->require_authentication == GQL_CFG_TRUE};
  if (st->jwt.set && !(l->verifier = gql_cli_jwt_verifier(cmd, st))) {
    gql_cli_live_free(l);
    return NULL;
  }
  return l;
}

void gql_cli_live_free(gql_cli_live *l) {
  if (!l)
    return;
  gql_jwt_verifier_free(l->verifier);
  gql_cli_demand_control_free(l->dc);
  gql_cli_persisted_free(l->persisted);
  gql_settings_free(l->owned);
  free(l);
}

const gql_cli_live *gql_cli_live_of(const gql_cli_hooks *h,
                                    const gql_http_request *r) {
  void *gen = gql_http_request_generation(r);
  const gql_cli_live *l = gen ? gql_cli_generation_live(gen) : NULL;
  return l ? l : h->first;
}
