/* gql config check FILE: loads a configuration file as gql serve and gql
 * gateway would, without serving. */
#include "auth/auth.h"
#include "cli.h"
#include "config/config.h"
#include "config/cors.h"
#include "config/headers.h"

#include <stdlib.h>

static const char usage[] =
    "Usage: gql config check FILE\n\n"
    "Checks a configuration file (YAML; see docs/config.md) without "
    "serving:\n"
    "unknown keys, wrong types, values out of range, bad regexes and unset\n"
    "${env.NAME} variables are reported as FILE:LINE:COLUMN: MESSAGE on\n"
    "stderr. Exit 0 when the file is valid, 1 when it is not, 2 on usage\n"
    "errors.\n";

static int check(const char *path) {
  gql_settings *st = NULL;
  char *errors = NULL;
  int rc = gql_settings_load_file(path, NULL, &st, &errors);
  if (rc < 0) {
    fputs(errors ? errors : "out of memory\n", stderr);
    free(errors);
    return 1;
  }
  /* the key sets must be there and load */
  if (st->jwt.set) {
    gql_jwt_verifier *v = gql_cli_jwt_verifier("gql config check", st);
    if (!v) {
      gql_settings_free(st);
      return 1;
    }
    gql_jwt_verifier_free(v);
  }
  /* what the server and the gateway would compile */
  char why[256] = "";
  gql_cors *cors = NULL;
  gql_header_policy *hp = NULL;
  rc = gql_cors_build(&st->cors, &cors, why, sizeof why);
  if (!rc)
    rc = gql_header_policy_build(&st->headers, &hp, why, sizeof why);
  gql_cors_free(cors);
  gql_header_policy_free(hp);
  gql_settings_free(st);
  if (rc < 0) {
    fprintf(stderr, "%s: %s\n", path, why[0] ? why : gql_strerror(rc));
    return 1;
  }
  printf("%s: valid\n", path);
  return 0;
}

static int run(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "gql config: which subcommand? (check)\n"
                    "Run 'gql config --help' for usage.\n");
    return 2;
  }
  if (strcmp(argv[1], "check") != 0) {
    fprintf(stderr,
            "gql config: unknown subcommand '%s' (check)\n"
            "Run 'gql config --help' for usage.\n",
            argv[1]);
    return 2;
  }
  if (argc != 3 || argv[2][0] == '-') {
    fprintf(stderr, "gql config check: needs exactly one FILE\n"
                    "Run 'gql config --help' for usage.\n");
    return 2;
  }
  return check(argv[2]);
}

const gql_cli_command gql_cmd_config = {
    .name = "config",
    .summary = "check a configuration file (gql config check FILE)",
    .usage = usage,
    .run = run,
};
