/* Feeds arbitrary bytes to every root-end scanner implementation, split
 * into reads at points taken from the input's first bytes, and checks that
 * the vector and portable paths answer exactly as the byte loop does. */
#include "json/root_end.h"

#include <stdint.h>
#include <string.h>

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond))                                                               \
      __builtin_trap();                                                        \
  } while (0)

typedef struct answer {
  gql_root_end_status status;
  uint64_t length;
} answer;

/* Reads of lengths cycling through `steps` (each 1..256). */
static answer scan(gql_root_end_impl impl, const uint8_t *p, size_t n,
                   const uint8_t *steps, size_t nsteps) {
  gql_root_end s;
  CHECK(gql_root_end_init_impl(&s, impl));
  answer a = {GQL_ROOT_END_MORE, 0};
  size_t i = 0;
  for (size_t off = 0; off < n; i++) {
    size_t step = (size_t)steps[i % nsteps] + 1;
    size_t k = n - off < step ? n - off : step;
    a.status = gql_root_end_feed(&s, p + off, k);
    off += k;
    if (a.status != GQL_ROOT_END_MORE) {
      /* sticky, whatever comes next */
      CHECK(gql_root_end_feed(&s, "}", 1) == a.status);
      break;
    }
  }
  if (a.status == GQL_ROOT_END_ENDED) {
    CHECK(s.length >= 2 && s.length <= n);
    CHECK(p[s.length - 1] == '}' || p[s.length - 1] == ']');
    a.length = s.length;
  }
  return a;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  size_t nsteps = (size_t)(data[0] % 8) + 1;
  if (size < 1 + nsteps)
    return 0;
  const uint8_t *steps = data + 1;
  const uint8_t *p = data + 1 + nsteps;
  size_t n = size - 1 - nsteps;
  static const uint8_t whole[] = {255};
  answer want = scan(GQL_ROOT_END_REFERENCE, p, n, steps, nsteps);
  /* the reference itself does not depend on the split when it ends */
  answer one = scan(GQL_ROOT_END_REFERENCE, p, n, whole, 1);
  CHECK(want.status != GQL_ROOT_END_BAD_START ||
        one.status == GQL_ROOT_END_BAD_START);
  static const gql_root_end_impl impls[] = {
      GQL_ROOT_END_PORTABLE, GQL_ROOT_END_SSE2, GQL_ROOT_END_AVX2};
  for (size_t i = 0; i < sizeof impls / sizeof *impls; i++) {
    if (!gql_root_end_supported(impls[i]))
      continue;
    answer a = scan(impls[i], p, n, steps, nsteps);
    CHECK(a.status == want.status && a.length == want.length);
  }
  return 0;
}
