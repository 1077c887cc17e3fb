/* Regular expressions for the configuration's patterns (CORS match_origins,
 * header-name matching), with PCRE2: its syntax is close to Apollo
 * Router's (Rust regex: \d, (?i), non-greedy repeats), and a match has a
 * step limit so that a hostile header value cannot take long.
 *
 * A compiled regex keeps its own match data, so a match allocates nothing;
 * in exchange one gql_regex is used by one thread at a time. */
#ifndef GQL_CONFIG_REGEX_H
#define GQL_CONFIG_REGEX_H

#include "core/core.h"

typedef struct gql_regex gql_regex;

/* NULL with a message in why[0..n) when the pattern does not compile (or
 * on no memory). */
gql_regex *gql_regex_compile(const char *pattern, char *why, size_t n);
/* True when the pattern matches somewhere in s[0..len) (as Rust's
 * is_match; anchor with ^ and $). False on no match or when the match
 * ran out of steps. */
bool gql_regex_match(gql_regex *re, const char *s, size_t len);
void gql_regex_free(gql_regex *re);

#endif
