/* graphql-js suggestionList and didYouMean, for "Did you mean" hints. */
#include "internal.h"

#include <ctype.h>
#include <stdlib.h>

static bool eq_lower(gql_str a, gql_str b) {
  if (a.len != b.len)
    return false;
  for (size_t i = 0; i < a.len; i++)
    if (tolower((unsigned char)a.ptr[i]) != tolower((unsigned char)b.ptr[i]))
      return false;
  return true;
}

/* Damerau-Levenshtein on lower-cased bytes, abandoned above threshold;
 * UINT32_MAX when too far. */
static uint32_t lexical_distance(gql_str input, gql_str option,
                                 uint32_t threshold, uint32_t *rows) {
  if (gql_str_eq(input, option))
    return 0;
  if (eq_lower(input, option))
    return 1;
  gql_str a = option, b = input;
  if (a.len < b.len) {
    gql_str t = a;
    a = b;
    b = t;
  }
  size_t alen = a.len, blen = b.len;
  if (alen - blen > threshold)
    return UINT32_MAX;
  uint32_t *r[3] = {rows, rows + blen + 1, rows + 2 * (blen + 1)};
  for (size_t j = 0; j <= blen; j++)
    r[0][j] = (uint32_t)j;
  for (size_t i = 1; i <= alen; i++) {
    uint32_t *up = r[(i - 1) % 3], *cur = r[i % 3];
    uint32_t smallest = cur[0] = (uint32_t)i;
    for (size_t j = 1; j <= blen; j++) {
      char ai = (char)tolower((unsigned char)a.ptr[i - 1]);
      char bj = (char)tolower((unsigned char)b.ptr[j - 1]);
      uint32_t cost = ai == bj ? 0 : 1;
      uint32_t c = up[j] + 1;
      if (cur[j - 1] + 1 < c)
        c = cur[j - 1] + 1;
      if (up[j - 1] + cost < c)
        c = up[j - 1] + cost;
      if (i > 1 && j > 1 && ai == (char)tolower((unsigned char)b.ptr[j - 2]) &&
          (char)tolower((unsigned char)a.ptr[i - 2]) == bj) {
        uint32_t dd = r[(i - 2) % 3][j - 2] + 1;
        if (dd < c)
          c = dd;
      }
      if (c < smallest)
        smallest = c;
      cur[j] = c;
    }
    if (smallest > threshold)
      return UINT32_MAX;
  }
  uint32_t d = r[alen % 3][blen];
  return d <= threshold ? d : UINT32_MAX;
}

/* graphql-js naturalCompare. */
int gql_natural_compare(gql_str a, gql_str b) {
  size_t ai = 0, bi = 0;
  while (ai < a.len && bi < b.len) {
    int ac = (unsigned char)a.ptr[ai], bc = (unsigned char)b.ptr[bi];
    if (gql_is_digit(ac) && gql_is_digit(bc)) {
      double an = 0, bn = 0;
      do {
        ++ai;
        an = an * 10 + (ac - '0');
        ac = ai < a.len ? (unsigned char)a.ptr[ai] : -1;
      } while (gql_is_digit(ac) && an > 0);
      do {
        ++bi;
        bn = bn * 10 + (bc - '0');
        bc = bi < b.len ? (unsigned char)b.ptr[bi] : -1;
      } while (gql_is_digit(bc) && bn > 0);
      if (an < bn)
        return -1;
      if (an > bn)
        return 1;
    } else {
      if (ac < bc)
        return -1;
      if (ac > bc)
        return 1;
      ++ai;
      ++bi;
    }
  }
  return (int)((long)a.len - (long)b.len);
}

typedef struct cand {
  gql_str s;
  uint32_t d;
} cand;

uint32_t gql_suggestion_list(gql_str input, const gql_str *options,
                             uint32_t noptions, gql_str *out, uint32_t max,
                             gql_arena *scratch) {
  uint32_t threshold = (uint32_t)(input.len * 4 / 10) + 1;
  size_t longest = input.len;
  for (uint32_t i = 0; i < noptions; i++)
    if (options[i].len > longest)
      longest = options[i].len;
  uint32_t *rows = gql_arena_alloc(scratch, 3 * (longest + 1) * sizeof *rows);
  cand *c =
      gql_arena_alloc(scratch, (size_t)(noptions ? noptions : 1) * sizeof *c);
  if (!rows || !c)
    return 0;
  uint32_t n = 0;
  for (uint32_t i = 0; i < noptions; i++) {
    bool dup = false;
    for (uint32_t j = 0; j < n && !dup; j++)
      dup = gql_str_eq(c[j].s, options[i]);
    if (dup)
      continue;
    uint32_t d = lexical_distance(input, options[i], threshold, rows);
    if (d != UINT32_MAX)
      c[n++] = (cand){options[i], d};
  }
  /* insertion sort: distance, then natural order */
  for (uint32_t i = 1; i < n; i++) {
    cand x = c[i];
    uint32_t j = i;
    while (j > 0 &&
           (c[j - 1].d > x.d ||
            (c[j - 1].d == x.d && gql_natural_compare(c[j - 1].s, x.s) > 0))) {
      c[j] = c[j - 1];
      j--;
    }
    c[j] = x;
  }
  uint32_t k = n < max ? n : max;
  for (uint32_t i = 0; i < k; i++)
    out[i] = c[i].s;
  return k;
}

void gql_did_you_mean(gql_buf *out, const char *sub, const gql_str *names,
                      uint32_t n) {
  if (!n)
    return;
  gql_buf_puts(out, " Did you mean ");
  if (sub) {
    gql_buf_puts(out, sub);
    gql_buf_putc(out, ' ');
  }
  if (n > 5)
    n = 5;
  for (uint32_t i = 0; i < n; i++) {
    if (i && n == 2)
      gql_buf_puts(out, " or ");
    else if (i && i == n - 1)
      gql_buf_puts(out, ", or ");
    else if (i)
      gql_buf_puts(out, ", ");
    gql_buf_putc(out, '"');
    gql_buf_put_str(out, names[i]);
    gql_buf_putc(out, '"');
  }
  gql_buf_putc(out, '?');
}
