/* libFuzzer target: the bytes as an Accept header for a response of
 * several payloads (src/http/incremental.c). The answer is one of the
 * formats, a format has a Content-Type and frames, and the same header
 * with a JSON-only range appended answers the same (such a range offers
 * no framing). */
#include "http/incremental.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *s = (const char *)data;
  gql_http_stream_format f = gql_http_stream_negotiate(s, size);
  if (f > GQL_HTTP_STREAM_SSE)
    __builtin_trap();
  if ((gql_http_stream_content_type(f) == NULL) != (f == GQL_HTTP_STREAM_NONE))
    __builtin_trap();
  for (int i = 0; i < 4; i++) {
    gql_http_frame fr = gql_http_stream_frame(f, i & 1, i & 2);
    if ((fr.head_len == 0) != (f == GQL_HTTP_STREAM_NONE) ||
        strlen(fr.head) != fr.head_len || strlen(fr.tail) != fr.tail_len)
      __builtin_trap();
  }
  /* a range after a complete one (no open quote) changes nothing when it
   * offers nothing */
  size_t quotes = 0;
  for (size_t i = 0; i < size; i++)
    quotes += data[i] == '"' || data[i] == '\\';
  if (!quotes && size) {
    static const char json[] = ",application/json";
    char *t = malloc(size + sizeof json);
    if (!t)
      return 0;
    memcpy(t, data, size);
    memcpy(t + size, json, sizeof json - 1);
    if (gql_http_stream_negotiate(t, size + sizeof json - 1) != f)
      __builtin_trap();
    free(t);
  }
  char chunk[20];
  size_t n = gql_http_chunk_head(chunk, size + 1);
  if (n < 3 || n > 18 || chunk[n - 2] != '\r' || chunk[n - 1] != '\n')
    __builtin_trap();
  return 0;
}
