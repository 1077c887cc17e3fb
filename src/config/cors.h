/* CORS as configured (the `cors` section, Apollo Router's semantics): given
 * a request's method, Origin and Access-Control-Request-* headers, the
 * answer the server gives. A preflight (OPTIONS with Origin and
 * Access-Control-Request-Method) is answered 204 without running anything;
 * another request from an allowed origin runs and gets the CORS headers;
 * a request from an origin no policy allows gets no Access-Control-*
 * header (only Vary: Origin, so caches keep answers apart).
 *
 * Policies are tried in order, each by exact origin first, then by its
 * match_origins regexes; the first that allows the origin applies.
 *
 * A gql_cors is used by one thread at a time (build one per worker). */
#ifndef GQL_CONFIG_CORS_H
#define GQL_CONFIG_CORS_H

#include "config.h"
#include "headers.h"

typedef struct gql_cors gql_cors;

typedef struct gql_cors_request {
  gql_str method;          /* "GET", "POST", "OPTIONS"... */
  gql_str origin;          /* ptr NULL: no Origin header */
  gql_str request_method;  /* Access-Control-Request-Method; ptr NULL: none */
  gql_str request_headers; /* Access-Control-Request-Headers; NULL: none */
} gql_cors_request;

typedef enum gql_cors_kind {
  GQL_CORS_NONE,     /* CORS off or no Origin: nothing to add */
  GQL_CORS_ACTUAL,   /* run the request, add `headers` to its response */
  GQL_CORS_PREFLIGHT /* answer `status` with `headers`, run nothing */
} gql_cors_kind;

#define GQL_CORS_MAX_HEADERS 7

typedef struct gql_cors_answer {
  uint8_t kind;    /* gql_cors_kind */
  bool allowed;    /* the origin is allowed */
  uint16_t status; /* PREFLIGHT: 204 */
  uint32_t nheaders;
  /* Values point into the policy or into the request (the origin, the
   * mirrored request headers): valid while both are. */
  gql_header headers[GQL_CORS_MAX_HEADERS];
} gql_cors_answer;

/* Compiles the section (NULL *out when CORS is off). 0, GQL_EINVAL with why
 * (a bad regex: cannot happen for loaded settings) or GQL_ENOMEM. */
int gql_cors_build(const gql_cfg_cors *cfg, gql_cors **out, char *why,
                   size_t n);
void gql_cors_free(gql_cors *c);
/* The answer for one request; `c` NULL (CORS off) gives GQL_CORS_NONE. */
void gql_cors_decide(gql_cors *c, const gql_cors_request *rq,
                     gql_cors_answer *a);

#endif
