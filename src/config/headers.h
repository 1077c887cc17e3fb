/* Header propagation to subgraphs: the configuration's rules (headers.all
 * then headers.subgraphs.NAME, in order) applied to a client request's
 * headers, giving the headers of one subgraph request. As Apollo Router:
 * insert replaces, remove removes, propagate appends the client's values
 * (or the default) once per target name; hop-by-hop headers and those the
 * gateway writes itself are never propagated (see gql_header_reserved).
 *
 * A policy compiles the regexes once; it is then used by one thread at a
 * time (build one per worker; it is cheap). */
#ifndef GQL_CONFIG_HEADERS_H
#define GQL_CONFIG_HEADERS_H

#include "config.h"
#include "json/json.h"

typedef struct gql_header {
  gql_str name; /* any case on input; rules' names are lower case */
  gql_str value;
} gql_header;

/* A list growing in an arena. */
typedef struct gql_header_list {
  gql_header *items;
  uint32_t count, cap;
} gql_header_list;

/* The client's side of a request. */
typedef struct gql_header_input {
  const gql_header *headers; /* as received (repeated names allowed) */
  uint32_t nheaders;
  const gql_json_value *claims; /* the verified JWT's claims, or NULL */
  const gql_json_value *body;   /* the request's JSON body, or NULL */
} gql_header_input;

typedef struct gql_header_policy gql_header_policy;
typedef struct gql_header_rules gql_header_rules;

/* Compiles the rules. 0, or GQL_EINVAL with why (bad regex: cannot happen
 * for loaded settings, which were checked) or GQL_ENOMEM. */
int gql_header_policy_build(const gql_cfg_headers *cfg, gql_header_policy **out,
                            char *why, size_t n);
void gql_header_policy_free(gql_header_policy *p);
/* The rules for the subgraph named `name` (headers.all alone when it has
 * none of its own). Never NULL for a built policy; a NULL policy gives
 * NULL, which gql_header_rules_apply takes as "no rules". */
gql_header_rules *gql_header_policy_for(gql_header_policy *p, gql_str name);
/* True when the configuration names a subgraph `name` (to warn about
 * names the supergraph does not have). */
bool gql_header_policy_names(const gql_header_policy *p, gql_str name);

/* Applies the rules to `out` (which may already hold headers the caller
 * set), allocating in `arena`. 0 or GQL_ENOMEM. */
int gql_header_rules_apply(gql_header_rules *r, const gql_header_input *in,
                           gql_header_list *out, gql_arena *arena);

/* Appends one header (no copy of the bytes). 0 or GQL_ENOMEM. */
int gql_header_list_add(gql_header_list *l, gql_arena *arena, gql_str name,
                        gql_str value);

/* Headers a rule never sends: hop-by-hop ones (RFC 9110 §7.6.1: connection,
 * keep-alive, proxy-*, te, trailer, transfer-encoding, upgrade) and those
 * the gateway writes itself (host, content-length, content-type,
 * content-encoding, accept, accept-encoding). Case-insensitive. */
bool gql_header_reserved(const char *name, size_t len);

/* A body path as Router's from_body takes it ("$.operationName",
 * ".extensions.client", "operationName") as dotted names ("operationName",
 * "extensions.client"), in a static-free form: returns a pointer into
 * `path`, or NULL when it is not a path of names. */
const char *gql_header_body_path(const char *path);

#endif
