#include "json/root_end.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_RESPONSE                                                         \
  GQL_SOURCE_DIR "/../shared/gateway-bench/expected_response.json"

static const gql_root_end_impl all_impls[] = {
    GQL_ROOT_END_REFERENCE, GQL_ROOT_END_PORTABLE, GQL_ROOT_END_SSE2,
    GQL_ROOT_END_AVX2};
static const char *impl_name[] = {"auto", "portable", "sse2", "avx2",
                                  "reference"};

typedef struct result {
  gql_root_end_status status;
  uint64_t length;
} result;

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  cr_assert(f != NULL, "cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  cr_assert(fread(buf, 1, (size_t)n, f) == (size_t)n);
  fclose(f);
  buf[n] = 0;
  *len = (size_t)n;
  return buf;
}

/* Feeds `s[0..n)` as reads of `step` bytes (0: one read); the status of
 * the last read that was fed, stopping at the first answer not MORE. */
static result scan_steps(gql_root_end_impl impl, const char *s, size_t n,
                         size_t step) {
  gql_root_end sc;
  cr_assert(gql_root_end_init_impl(&sc, impl));
  result r = {GQL_ROOT_END_MORE, 0};
  if (step == 0)
    step = n ? n : 1;
  for (size_t off = 0; off < n; off += step) {
    size_t k = n - off < step ? n - off : step;
    r.status = gql_root_end_feed(&sc, s + off, k);
    if (r.status != GQL_ROOT_END_MORE)
      break;
  }
  r.length = r.status == GQL_ROOT_END_ENDED ? sc.length : 0;
  return r;
}

static result scan_split(gql_root_end_impl impl, const char *s, size_t n,
                         size_t k) {
  gql_root_end sc;
  cr_assert(gql_root_end_init_impl(&sc, impl));
  result r;
  r.status = gql_root_end_feed(&sc, s, k);
  if (r.status == GQL_ROOT_END_MORE)
    r.status = gql_root_end_feed(&sc, s + k, n - k);
  r.length = r.status == GQL_ROOT_END_ENDED ? sc.length : 0;
  return r;
}

static result scan1(gql_root_end_impl impl, const char *s) {
  return scan_steps(impl, s, strlen(s), 0);
}

/* Runs `check` for every implementation this CPU has. */
#define FOR_EACH_IMPL(impl)                                                    \
  for (size_t i_ = 0; i_ < sizeof all_impls / sizeof *all_impls; i_++)         \
    for (gql_root_end_impl impl = all_impls[i_];                               \
         impl != GQL_ROOT_END_AUTO && gql_root_end_supported(impl);            \
         impl = GQL_ROOT_END_AUTO)

static void expect(gql_root_end_impl impl, const char *s,
                   gql_root_end_status status, uint64_t length) {
  result r = scan1(impl, s);
  cr_expect_eq(r.status, status, "%s on <%s>: status %d, expected %d",
               impl_name[impl], s, r.status, status);
  cr_expect_eq(r.length, length, "%s on <%s>: length %llu, expected %llu",
               impl_name[impl], s, (unsigned long long)r.length,
               (unsigned long long)length);
}

Test(root_end, the_x86_build_has_sse2) {
#if defined(__x86_64__)
  cr_assert(gql_root_end_supported(GQL_ROOT_END_SSE2));
#endif
  gql_root_end s;
  gql_root_end_init(&s);
  cr_assert_neq(s.impl, GQL_ROOT_END_AUTO);
}

Test(root_end, benchmark_response_ends_at_its_last_byte_in_one_read) {
  size_t n;
  char *doc = read_file(BENCH_RESPONSE, &n);
  cr_assert_eq(n, 87599);
  FOR_EACH_IMPL(impl) {
    result r = scan_steps(impl, doc, n, 0);
    cr_assert_eq(r.status, GQL_ROOT_END_ENDED, "%s", impl_name[impl]);
    cr_assert_eq(r.length, n, "%s", impl_name[impl]);
  }
  free(doc);
}

Test(root_end,
     every_split_of_the_benchmark_response_gives_the_one_read_result) {
  size_t n;
  char *doc = read_file(BENCH_RESPONSE, &n);
  /* The vector paths at every split; the byte loops at every split near a
   * block edge and every 61st elsewhere (they are ~10x slower). */
  FOR_EACH_IMPL(impl) {
    bool vector = impl == GQL_ROOT_END_SSE2 || impl == GQL_ROOT_END_AVX2;
    for (size_t k = 0; k <= n; k++) {
      size_t m = k % 64;
      if (!vector && !(m <= 1 || m >= 63) && k % 61 != 0 && k + 3 < n)
        continue;
      result r = scan_split(impl, doc, n, k);
      if (r.status != GQL_ROOT_END_ENDED || r.length != n)
        cr_assert_fail("%s split at %zu: status %d length %llu",
                       impl_name[impl], k, r.status,
                       (unsigned long long)r.length);
    }
  }
  free(doc);
}

Test(root_end, benchmark_response_without_its_last_brace_never_ends) {
  size_t n;
  char *doc = read_file(BENCH_RESPONSE, &n);
  cr_assert_eq(doc[n - 1], '}');
  static const size_t steps[] = {1, 7, 63, 64, 65, 4096, 0};
  FOR_EACH_IMPL(impl) {
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
      result r = scan_steps(impl, doc, n - 1, steps[i]);
      cr_expect_eq(r.status, GQL_ROOT_END_MORE, "%s step %zu", impl_name[impl],
                   steps[i]);
    }
  }
  free(doc);
}

Test(root_end, data_after_the_root_in_the_same_read_is_trailing) {
  FOR_EACH_IMPL(impl) {
    expect(impl, "{\"data\":{}}x", GQL_ROOT_END_TRAILING, 0);
    expect(impl, "{\"data\":{}}{}", GQL_ROOT_END_TRAILING, 0);
    expect(impl, "{\"data\":{}} \n ,", GQL_ROOT_END_TRAILING, 0);
    expect(impl, "[1] [2]", GQL_ROOT_END_TRAILING, 0);
  }
}

Test(root_end, whitespace_after_the_root_ends_it) {
  FOR_EACH_IMPL(impl) {
    expect(impl, "{\"data\":{}}\r\n \t", GQL_ROOT_END_ENDED, 11);
    expect(impl, "{\"data\":{}}", GQL_ROOT_END_ENDED, 11);
    expect(impl, " \n\t\r[1,[2],{}] ", GQL_ROOT_END_ENDED, 14);
    expect(impl, "{}", GQL_ROOT_END_ENDED, 2);
  }
}

Test(root_end, data_in_a_later_read_is_not_examined) {
  FOR_EACH_IMPL(impl) {
    gql_root_end s;
    gql_root_end_init_impl(&s, impl);
    cr_assert_eq(gql_root_end_feed(&s, "{\"a\":", 5), GQL_ROOT_END_MORE);
    cr_assert_eq(gql_root_end_feed(&s, "1}", 2), GQL_ROOT_END_ENDED);
    cr_assert_eq(s.length, 7);
    /* sticky: a later read changes nothing */
    cr_assert_eq(gql_root_end_feed(&s, "xyz", 3), GQL_ROOT_END_ENDED);
    cr_assert_eq(s.length, 7);
  }
}

Test(root_end, a_scalar_or_garbage_root_is_a_bad_start) {
  static const char *bad[] = {"\"abc\"", "123", "true", "null",
                              "  x{}",   "}",   "]",    "\xef\xbb\xbf{}"};
  FOR_EACH_IMPL(impl) {
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
      expect(impl, bad[i], GQL_ROOT_END_BAD_START, 0);
    /* whitespace alone, over several reads, is not yet a verdict */
    gql_root_end s;
    gql_root_end_init_impl(&s, impl);
    cr_assert_eq(gql_root_end_feed(&s, "  \n", 3), GQL_ROOT_END_MORE);
    cr_assert_eq(gql_root_end_feed(&s, "\t", 1), GQL_ROOT_END_MORE);
    cr_assert_eq(gql_root_end_feed(&s, "7", 1), GQL_ROOT_END_BAD_START);
  }
}

Test(root_end, brackets_and_escaped_quotes_inside_strings_do_not_count) {
  FOR_EACH_IMPL(impl) {
    expect(impl, "{\"a\":\"}]\"}", GQL_ROOT_END_ENDED, 10);
    expect(impl, "{\"a\":\"\\\"}\"}", GQL_ROOT_END_ENDED, 11);
    /* \\" : the backslash is escaped, the quote closes the string */
    expect(impl, "{\"a\":\"\\\\\"}x", GQL_ROOT_END_TRAILING, 0);
    /* \\\" : the quote is escaped */
    expect(impl, "{\"a\":\"\\\\\\\"}\"}", GQL_ROOT_END_ENDED, 13);
    /* \u005c is a backslash only after decoding */
    expect(impl, "{\"a\":\"\\u005c\"}", GQL_ROOT_END_ENDED, 14);
    expect(impl, "{\"{[\":[\"]]]}}}\"]}", GQL_ROOT_END_ENDED, 17);
  }
}

/* {"s":"<pad><k backslashes>"}"} : with k even the quote after the run
 * closes the string and the first } the root (trailing "}); with k odd the
 * quote is escaped and the root closes at the last byte. */
static size_t backslash_doc(char *buf, size_t pad, size_t k) {
  size_t n = 0;
  memcpy(buf, "{\"s\":\"", 6);
  n = 6;
  memset(buf + n, 'a', pad);
  n += pad;
  memset(buf + n, '\\', k);
  n += k;
  memcpy(buf + n, "\"}\"}", 4);
  n += 4;
  buf[n] = 0;
  return n;
}

Test(root_end, backslash_runs_across_block_and_read_edges) {
  char buf[512];
  FOR_EACH_IMPL(impl) {
    for (size_t pad = 0; pad < 70; pad++) {
      for (size_t k = 0; k <= 140; k++) {
        size_t n = backslash_doc(buf, pad, k);
        result want = {k % 2 ? GQL_ROOT_END_ENDED : GQL_ROOT_END_TRAILING,
                       k % 2 ? n : 0};
        result r = scan_steps(impl, buf, n, 0);
        if (r.status != want.status || r.length != want.length)
          cr_assert_fail("%s pad %zu k %zu: status %d", impl_name[impl], pad, k,
                         r.status);
        /* reads split inside the run, when it straddles a block edge */
        bool interesting = k == 1 || k == 2 || (k >= 62 && k <= 66) ||
                           k == 127 || k == 128 || k == 129;
        if (!interesting)
          continue;
        for (size_t cut = 1; cut < n; cut++) {
          /* a read ending right after the closer never sees the rest */
          size_t close_end = 6 + pad + k + 2;
          result w = want;
          if (k % 2 == 0 && cut == close_end)
            w = (result){GQL_ROOT_END_ENDED, close_end};
          r = scan_split(impl, buf, n, cut);
          if (r.status != w.status || r.length != w.length)
            cr_assert_fail("%s pad %zu k %zu cut %zu: status %d",
                           impl_name[impl], pad, k, cut, r.status);
        }
      }
    }
  }
}

Test(root_end, deep_nesting_is_counted_without_limit) {
  size_t depth = 100000;
  char *buf = malloc(2 * depth + 1);
  memset(buf, '[', depth);
  memset(buf + depth, ']', depth);
  buf[2 * depth] = 0;
  FOR_EACH_IMPL(impl) {
    result r = scan_steps(impl, buf, 2 * depth, 4096);
    cr_expect_eq(r.status, GQL_ROOT_END_ENDED);
    cr_expect_eq(r.length, 2 * depth);
    r = scan_steps(impl, buf, 2 * depth - 1, 1000);
    cr_expect_eq(r.status, GQL_ROOT_END_MORE);
  }
  free(buf);
}

/* xorshift: deterministic random inputs for the differential test */
static uint64_t next_rand(uint64_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return *x;
}

Test(root_end, vector_and_portable_paths_agree_with_the_byte_loop) {
  static const char alphabet[] = "{}[]\"\\\\ a\n:";
  uint64_t seed = 0x9e3779b97f4a7c15ull;
  char buf[600];
  for (int iter = 0; iter < 20000; iter++) {
    size_t n = next_rand(&seed) % sizeof buf;
    for (size_t i = 0; i < n; i++)
      buf[i] = alphabet[next_rand(&seed) % (sizeof alphabet - 1)];
    if (n && next_rand(&seed) % 2)
      buf[0] = next_rand(&seed) % 2 ? '{' : '[';
    /* a deep prefix keeps the root open over whole blocks (the fast path) */
    if (n > 100 && next_rand(&seed) % 2)
      for (size_t i = 0; i < 40; i++)
        buf[i] = next_rand(&seed) % 2 ? '{' : '[';
    size_t step = 1 + next_rand(&seed) % 130;
    result want = scan_steps(GQL_ROOT_END_REFERENCE, buf, n, step);
    FOR_EACH_IMPL(impl) {
      result r = scan_steps(impl, buf, n, step);
      if (r.status != want.status || r.length != want.length)
        cr_assert_fail("iter %d %s: status %d/%d length %llu/%llu", iter,
                       impl_name[impl], r.status, want.status,
                       (unsigned long long)r.length,
                       (unsigned long long)want.length);
    }
  }
}
