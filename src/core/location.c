/* Lines and columns of byte offsets (gql_location_of, public): in core, so
 * that every layer that reports a position may use it. */
#include "core.h"

/* Lines end at "\r\n", "\n" or "\r" (graphql-js getLocation). Columns count
 * UTF-16 code units, since graphql-js indexes JavaScript strings: a code
 * point above U+FFFF counts two, continuation bytes count nothing. */
gql_location gql_location_of(const char *source, size_t source_len,
                             size_t offset) {
  if (offset > source_len)
    offset = source_len;
  uint32_t line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < offset; i++) {
    char c = source[i];
    if (c == '\n') {
      line++;
      line_start = i + 1;
    } else if (c == '\r') {
      if (i + 1 < source_len && source[i + 1] == '\n') {
        if (i + 1 >= offset)
          break; /* offset sits on the \n of \r\n: same line */
        i++;
      }
      line++;
      line_start = i + 1;
    }
  }
  uint32_t column = 1;
  for (size_t i = line_start; i < offset; i++) {
    unsigned char c = (unsigned char)source[i];
    if ((c & 0xC0) == 0x80)
      continue;
    column += c >= 0xF0 ? 2 : 1;
  }
  return (gql_location){line, column};
}
