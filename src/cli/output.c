/* What the commands share: printing GraphQL errors, reading JSON files,
 * the trace options. */
#include "cli.h"
#include "json/json.h"

#include <errno.h>
#include <stdlib.h>

void gql_cli_print_errors_json(FILE *f, const gql_error *items, uint32_t n) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_json_write_errors(&b, items, n);
  gql_buf_putc(&b, '\n');
  if (b.failed)
    fputs("gql: out of memory\n", stderr);
  else
    fwrite(b.data, 1, b.len, f);
  gql_buf_free(&b);
}

const gql_value *gql_cli_read_json(gql_arena *arena, const char *cmd,
                                   const char *path, char **text) {
  size_t len;
  *text = gql_cli_read_file_as(cmd, path, &len);
  if (!*text)
    return NULL;
  gql_json_value *v = NULL;
  gql_json_error err;
  int rc = gql_json_parse(arena, *text, len, NULL, &v, &err);
  if (rc == GQL_ENOMEM) {
    fprintf(stderr, "%s: %s: %s\n", cmd, gql_cli_display_name(path),
            gql_strerror(rc));
    return NULL;
  }
  if (rc) { /* the message says where */
    fprintf(stderr, "%s: %s: %s\n", cmd, gql_cli_display_name(path),
            err.message);
    return NULL;
  }
  return v;
}

void gql_cli_print_errors_text(FILE *f, const gql_error *items, uint32_t n,
                               const char *path) {
  for (uint32_t i = 0; i < n; i++) {
    const gql_error *e = &items[i];
    if (e->nlocations)
      fprintf(f, "%s:%u:%u: %s\n", gql_cli_display_name(path),
              e->locations[0].line, e->locations[0].column, e->message);
    else
      fprintf(f, "%s: %s\n", gql_cli_display_name(path), e->message);
  }
}

bool gql_cli_trace_collapse_ok(const char *v) {
  return strcmp(v, "on") == 0 || strcmp(v, "off") == 0;
}

bool gql_cli_otlp_protocol(const char *v, gql_otlp_protocol *out) {
  gql_otlp_protocol p;
  if (strcmp(v, "http/json") == 0)
    p = GQL_OTLP_HTTP_JSON;
  else if (strcmp(v, "http/protobuf") == 0)
    p = GQL_OTLP_HTTP_PROTOBUF;
  else
    return false;
  if (out)
    *out = p;
  return true;
}

bool gql_cli_trace_depth_ok(const char *v) {
  char *end;
  long d = strtol(v, &end, 10);
  return *v && !*end && d >= -1 && d <= 100000;
}

int gql_cli_trace_options(gql_trace_options *to, bool source,
                          const char *collapse, const char *depth,
                          const char *variables, char **vars_copy,
                          const char *allow[64]) {
  gql_trace_options_init(to);
  to->source = source;
  to->no_collapse = collapse && strcmp(collapse, "off") == 0;
  if (depth)
    to->depth = (int32_t)strtol(depth, NULL, 10);
  *vars_copy = NULL;
  if (variables) {
    if (!(*vars_copy = strdup(variables)))
      return GQL_ENOMEM;
    for (char *save = NULL, *v = strtok_r(*vars_copy, ",", &save);
         v && to->nvariables < 64; v = strtok_r(NULL, ",", &save))
      allow[to->nvariables++] = v;
    to->variables = allow;
  }
  return 0;
}

bool gql_cli_parse_num(const char *cmd, const char *opt, const char *s,
                       unsigned long long max, unsigned long long *out) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || end == s || *end || s[0] == '-' || v > max) {
    fprintf(stderr, "%s: %s needs a number up to %llu, not '%s'\n", cmd, opt,
            max, s);
    return false;
  }
  *out = v;
  return true;
}

bool gql_cli_parse_range(const char *cmd, const char *opt, const char *v,
                         unsigned long long min, unsigned long long max,
                         unsigned long long *out) {
  if (!gql_cli_parse_num(cmd, opt, v, max, out))
    return false;
  if (*out < min) {
    fprintf(stderr, "%s: %s needs a number from %llu to %llu, not '%s'\n", cmd,
            opt, min, max, v);
    return false;
  }
  return true;
}

int gql_cli_take_value(const char *cmd, int argc, char **argv, int *i,
                       const char *const *names, size_t n, const char **v) {
  const char *a = argv[*i];
  bool known = false;
  for (size_t k = 0; k < n && !known; k++)
    known = strcmp(a, names[k]) == 0;
  if (!known)
    return 0;
  if (*i + 1 >= argc) {
    fprintf(stderr, "%s: %s needs a value\n", cmd, a);
    return -1;
  }
  *v = argv[++*i];
  return 1;
}
