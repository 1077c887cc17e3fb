/*
 * incremental_legacy: graphql-js 17's incremental payloads, one compact
 * JSON a line on stdin (the recorded `payloads` of a case, or what
 * incremental_exec printed), converted by src/http/incremental_legacy.c to
 * Apollo's deferSpec=20220824 format, one a line on stdout: run.py's part
 * "legacy" checks them against the recorded `legacyPayloads`.
 * Exits 1 (the reason on stderr) when a payload could not be converted.
 */
#include "http/incremental_legacy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
  char **lines = NULL;
  size_t *lens = NULL, n = 0, cap = 0;
  char *line = NULL;
  size_t lcap = 0;
  ssize_t len;
  while ((len = getline(&line, &lcap, stdin)) > 0) {
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
      len--;
    if (!len)
      continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 8;
      lines = realloc(lines, cap * sizeof *lines);
      lens = realloc(lens, cap * sizeof *lens);
      if (!lines || !lens)
        return 2;
    }
    lines[n] = malloc((size_t)len);
    if (!lines[n])
      return 2;
    memcpy(lines[n], line, (size_t)len);
    lens[n++] = (size_t)len;
  }
  free(line);
  gql_http_legacy l = {0};
  int rc = 0;
  for (size_t i = 0; i < n; i++) {
    const char *out;
    size_t out_len;
    gql_http_legacy_status st = gql_http_legacy_convert(
        &l, lines[i], lens[i], i + 1 < n, &out, &out_len);
    fwrite(out, 1, out_len, stdout);
    fputc('\n', stdout);
    if (st) {
      fprintf(stderr, "incremental_legacy: payload %zu: %s\n", i + 1,
              gql_http_legacy_message(st));
      rc = 1;
    }
    free(lines[i]);
  }
  gql_http_legacy_free(&l);
  free(lines);
  free(lens);
  return rc;
}
