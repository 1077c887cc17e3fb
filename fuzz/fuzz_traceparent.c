/* W3C Trace Context headers from arbitrary bytes: the first line is a
 * traceparent, the rest a tracestate. An accepted traceparent formats
 * back (with its parent id) to a version-00 header that parses to the same
 * ids; an accepted tracestate is at most 512 characters in its normal form,
 * and the normal form parses to itself. A rejected one leaves no state. */
#include "gql.h"

#include <stdint.h>
#include <string.h>

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond))                                                               \
      __builtin_trap();                                                        \
  } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *s = (const char *)data;
  const char *nl = memchr(s, '\n', size);
  size_t n1 = nl ? (size_t)(nl - s) : size;
  gql_trace_context c;
  memset(&c, 0xa5, sizeof c);
  if (gql_traceparent_parse(s, n1, &c) == 0) {
    CHECK((c.trace_hi | c.trace_lo) != 0 && c.parent_id != 0);
    char out[GQL_TRACEPARENT_LEN + 1];
    gql_traceparent_format(&c, c.parent_id, out);
    CHECK(strlen(out) == GQL_TRACEPARENT_LEN);
    gql_trace_context d;
    CHECK(gql_traceparent_parse(out, GQL_TRACEPARENT_LEN, &d) == 0);
    CHECK(d.trace_hi == c.trace_hi && d.trace_lo == c.trace_lo &&
          d.parent_id == c.parent_id && d.flags == c.flags);
  }
  if (!nl)
    return 0;
  const char *st = nl + 1;
  size_t n2 = size - n1 - 1;
  if (gql_tracestate_parse(st, n2, &c) == 0) {
    CHECK(c.tracestate_len <= GQL_TRACESTATE_MAX);
    CHECK(strlen(c.tracestate) == c.tracestate_len);
    gql_trace_context d;
    CHECK(gql_tracestate_parse(c.tracestate, c.tracestate_len, &d) == 0);
    CHECK(d.tracestate_len == c.tracestate_len &&
          memcmp(d.tracestate, c.tracestate, c.tracestate_len) == 0);
  } else {
    CHECK(c.tracestate_len == 0 && c.tracestate[0] == 0);
  }
  return 0;
}
