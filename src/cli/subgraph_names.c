/* gql gateway's warning for the configuration's entries that name no
 * subgraph of the supergraph (gql_cfg_unknown_subgraphs), at its start
 * and at each reload. */
#include "cli.h"
#include "gateway/gateway.h"

#include <stdlib.h>

void gql_cli_warn_subgraph_names(const char *cmd, const gql_settings *st,
                                 const gql_supergraph *sg) {
  gql_str *names = calloc(sg->ngraphs ? sg->ngraphs : 1, sizeof *names);
  if (!names)
    return; /* (a warning only: the out of memory shows elsewhere) */
  for (uint32_t i = 0; i < sg->ngraphs; i++)
    names[i] = sg->graphs[i].name;
  char *lines = NULL;
  int n = gql_cfg_unknown_subgraphs(st, names, sg->ngraphs, &lines);
  free(names);
  for (char *p = lines, *nl; n > 0 && p && *p; p = nl + 1) {
    nl = strchr(p, '\n');
    fprintf(stderr, "%s: warning: %.*s\n", cmd, (int)(nl - p), p);
  }
  free(lines);
}
