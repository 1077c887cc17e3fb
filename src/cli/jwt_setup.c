/* The verifier of authentication.router.jwt: each key set read from its
 * file:// url and added with the issuers, audiences and algorithms it
 * accepts. (http:// sets will be fetched once the server has its loop at
 * hand; until then they are refused here.) */
#include "auth/auth.h"
#include "cli.h"

#include <stdlib.h>

static uint32_t alg_mask(const gql_cfg_strs *algs) {
  uint32_t mask = 0;
  for (uint32_t i = 0; i < algs->count; i++) {
    int a = gql_jwt_alg_from_name(gql_cstr(algs->items[i]));
    if (a >= 0)
      mask |= 1u << a;
  }
  return mask;
}

gql_jwt_verifier *gql_cli_jwt_verifier(const char *cmd,
                                       const gql_settings *st) {
  const gql_cfg_jwt *jwt = &st->jwt;
  const char *file = st->file ? st->file : "<config>";
  gql_jwt_verifier *v = gql_jwt_verifier_new(jwt->leeway_s);
  if (!v) {
    fprintf(stderr, "%s: out of memory\n", cmd);
    return NULL;
  }
  for (uint32_t i = 0; i < jwt->njwks; i++) {
    const gql_cfg_jwks *j = &jwt->jwks[i];
    if (strncmp(j->url, "file://", 7) != 0) {
      fprintf(stderr, "%s: %s:%u:%u: jwks url %s: only file:// is read yet\n",
              cmd, file, j->loc.line, j->loc.column, j->url);
      goto fail;
    }
    size_t len;
    char *text = gql_cli_read_file_as(cmd, j->url + 7, &len);
    if (!text)
      goto fail;
    gql_jwks *set = NULL;
    char why[256];
    int rc = gql_jwks_parse(text, len, &set, why, sizeof why);
    free(text);
    if (rc < 0) {
      fprintf(stderr, "%s: %s:%u:%u: %s: %s\n", cmd, file, j->loc.line,
              j->loc.column, j->url + 7,
              rc == GQL_ENOMEM ? "out of memory" : why);
      goto fail;
    }
    gql_jwt_accept acc = {j->issuers.items, j->issuers.count,
                          j->audiences.items, j->audiences.count,
                          alg_mask(&j->algorithms)};
    if (gql_jwt_verifier_add(v, set, &acc) < 0) {
      fprintf(stderr, "%s: out of memory\n", cmd);
      goto fail;
    }
  }
  return v;
fail:
  gql_jwt_verifier_free(v);
  return NULL;
}
