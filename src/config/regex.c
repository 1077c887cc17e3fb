#define PCRE2_CODE_UNIT_WIDTH 8
#include "regex.h"
#include "internal.h"

#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>

/* Steps a match may take: ample for an origin or a header name against a
 * sane pattern, small enough that a catastrophic one stops in well under
 * a millisecond. */
#define MATCH_LIMIT 20000u

struct gql_regex {
  pcre2_code *code;
  pcre2_match_data *md;
  pcre2_match_context *mctx;
};

gql_regex *gql_regex_compile(const char *pattern, char *why, size_t n) {
  int err;
  PCRE2_SIZE off;
  gql_regex *re = calloc(1, sizeof *re);
  if (!re) {
    snprintf(why, n, "out of memory");
    return NULL;
  }
  re->code =
      pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
                    PCRE2_UTF | PCRE2_NEVER_BACKSLASH_C, &err, &off, NULL);
  if (!re->code) {
    PCRE2_UCHAR msg[160];
    pcre2_get_error_message(err, msg, sizeof msg);
    snprintf(why, n, "%s at offset %zu", (const char *)msg, (size_t)off);
    free(re);
    return NULL;
  }
  re->md = pcre2_match_data_create(1, NULL);
  re->mctx = pcre2_match_context_create(NULL);
  if (!re->md || !re->mctx) {
    snprintf(why, n, "out of memory");
    gql_regex_free(re);
    return NULL;
  }
  pcre2_set_match_limit(re->mctx, MATCH_LIMIT);
  pcre2_set_depth_limit(re->mctx, MATCH_LIMIT);
  (void)pcre2_jit_compile(re->code, PCRE2_JIT_COMPLETE); /* optional */
  return re;
}

bool gql_regex_match(gql_regex *re, const char *s, size_t len) {
  /* invalid UTF-8 in the subject is no match (never undefined behaviour) */
  int rc = pcre2_match(re->code, (PCRE2_SPTR)s, len, 0, 0, re->md, re->mctx);
  return rc >= 0;
}

void gql_regex_free(gql_regex *re) {
  if (!re)
    return;
  pcre2_match_context_free(re->mctx);
  pcre2_match_data_free(re->md);
  pcre2_code_free(re->code);
  free(re);
}

bool gql_cfg_regex_ok(const char *pattern, char *why, size_t n) {
  gql_regex *re = gql_regex_compile(pattern, why, n);
  bool ok = re != NULL;
  gql_regex_free(re);
  return ok;
}
