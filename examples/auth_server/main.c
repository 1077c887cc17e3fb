/* Authenticating requests in an embedded gql HTTP server: an execute hook
 * reads the Authorization header, refuses a missing or unknown token with
 * 401 and WWW-Authenticate, and gives the resolvers the user it names;
 * resolvers, synchronous and pending, read the request (headers, method,
 * path, peer) and the token's claims; a response hook adds headers. Per-worker
 * state counts each worker's requests without locks.
 *
 *   auth_server [PORT]        (default 4002; 0: any free port)
 *   curl -s localhost:4002/graphql -H 'authorization: Bearer alice-token' \
 *        -H 'content-type: application/json' -d '{"query":"{ me }"}'
 */
#include "gql.h"
#include "gql_http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char sdl[] =
    "type Query {\n"
    "  \"The user the request's token names.\"\n"
    "  me: String!\n"
    "  \"A header of the request (the first when repeated).\"\n"
    "  header(name: String!): String\n"
    "  method: String!\n"
    "  path: String!\n"
    "  peer: String!\n"
    "  \"The user again, after `ms` milliseconds (a pending field).\"\n"
    "  meLater(ms: Int = 10): String!\n"
    "  \"A claim of the request's token (a string, else its JSON).\"\n"
    "  claim(name: String!): String\n"
    "}\n";

/* The users and their tokens: a real server would verify a JWT or ask a
 * session store here. */
typedef struct user {
  const char *name;
  const char *token;
  const char *claims; /* what a verified JWT's payload would hold */
} user;

static const user users[] = {
    {"alice", "alice-token", "{\"sub\":\"alice\",\"scope\":\"read write\"}"},
    {"bob", "bob-token", "{\"sub\":\"bob\",\"admin\":true}"}};

/* Each worker's own state (gql_http_hooks.worker_start). */
typedef struct worker {
  unsigned long requests;
} worker;

static void *worker_start(void *ud) {
  (void)ud;
  return calloc(1, sizeof(worker));
}

static void worker_free(void *ud, void *w) {
  (void)ud;
  free(w);
}

/* Before a GraphQL operation runs: who is asking? */
static void authenticate(void *wp, gql_http_request *r) {
  worker *w = wp;
  w->requests++;
  gql_str auth = gql_http_request_header(r, "authorization");
  if (!auth.ptr) {
    gql_http_request_add_header(r, "WWW-Authenticate",
                                "Bearer realm=\"auth_server\"");
    gql_http_request_reject(r, 401, "Authentication required.",
                            "UNAUTHENTICATED");
    return;
  }
  for (size_t i = 0; i < sizeof users / sizeof users[0]; i++) {
    size_t n = strlen(users[i].token);
    if (auth.len == 7 + n && strncmp(auth.ptr, "Bearer ", 7) == 0 &&
        memcmp(auth.ptr + 7, users[i].token, n) == 0) {
      gql_http_request_set_context(r, (void *)&users[i]);
      /* the claims, for resolvers (gql_http_request_claims) */
      const gql_value *claims = NULL;
      if (gql_value_parse(gql_http_request_arena(r), users[i].claims,
                          strlen(users[i].claims), &claims) == 0)
        gql_http_request_set_claims(r, claims);
      return;
    }
  }
  gql_http_request_add_header(
      r, "WWW-Authenticate",
      "Bearer realm=\"auth_server\", error=\"invalid_token\"");
  gql_http_request_reject(r, 401, "Invalid token.", "UNAUTHENTICATED");
}

/* Every response: which user, and how many requests this worker saw. */
static void on_response(void *wp, gql_http_request *r, int status) {
  (void)status;
  const worker *w = wp;
  const user *u = gql_http_request_context(r);
  if (u)
    gql_http_request_add_header(r, "X-User", u->name);
  char n[32];
  snprintf(n, sizeof n, "%lu", w->requests);
  gql_http_request_add_header(r, "X-Worker-Requests", n);
}

static void out_str(gql_out *out, gql_str s) {
  if (s.ptr)
    gql_out_string(out, s.ptr, s.len);
}

static void me(const gql_resolve_info *info, const void *parent, gql_out *out) {
  (void)parent;
  const user *u = gql_http_request_context(gql_http_request_of(info));
  gql_out_string(out, u->name, strlen(u->name));
}

static void header(const gql_resolve_info *info, const void *parent,
                   gql_out *out) {
  (void)parent;
  gql_str name = gql_value_string(gql_arg(info, "name"));
  char buf[128];
  snprintf(buf, sizeof buf, "%.*s", (int)name.len, name.ptr);
  out_str(out, gql_http_request_header(gql_http_request_of(info), buf));
}

static void method(const gql_resolve_info *info, const void *parent,
                   gql_out *out) {
  (void)parent;
  out_str(out, gql_http_request_method(gql_http_request_of(info)));
}

static void path(const gql_resolve_info *info, const void *parent,
                 gql_out *out) {
  (void)parent;
  out_str(out, gql_http_request_path(gql_http_request_of(info)));
}

static void peer(const gql_resolve_info *info, const void *parent,
                 gql_out *out) {
  (void)parent;
  const char *p = gql_http_request_peer(gql_http_request_of(info));
  gql_out_string(out, p, strlen(p));
}

static void claim(const gql_resolve_info *info, const void *parent,
                  gql_out *out) {
  (void)parent;
  gql_http_request *r = gql_http_request_of(info);
  gql_str name = gql_value_string(gql_arg(info, "name"));
  const gql_value *v =
      gql_value_get(gql_http_request_claims(r), name.ptr, name.len);
  gql_str text = {0};
  if (gql_value_kind_of(v) == GQL_VALUE_STRING)
    text = gql_value_string(v);
  else if (v && gql_value_print(gql_http_request_arena(r), v, &text) < 0)
    text = (gql_str){0};
  out_str(out, text); /* nothing written: null */
}

/* A pending field: the request stays readable until it completes. */
typedef struct later_timer {
  uv_timer_t timer;
  gql_pending *pending;
  gql_http_request *request;
} later_timer;

static void later_closed(uv_handle_t *h) {
  free(h->data);
}

static void later_fire(uv_timer_t *t) {
  later_timer *lt = t->data;
  const user *u = gql_http_request_context(lt->request);
  gql_str agent = gql_http_request_header(lt->request, "user-agent");
  char buf[256];
  int n = snprintf(buf, sizeof buf, "%s (%.*s)", u->name,
                   agent.ptr ? (int)agent.len : 1, agent.ptr ? agent.ptr : "-");
  gql_out_string(gql_pending_out(lt->pending), buf,
                 (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
  uv_close((uv_handle_t *)&lt->timer, later_closed);
}

static void me_later(const gql_resolve_info *info, const void *parent,
                     gql_out *out) {
  (void)parent;
  int64_t ms = 0;
  if (!gql_value_int(gql_arg(info, "ms"), &ms) || ms < 0 || ms > 60000) {
    gql_out_error(out, "ms must be between 0 and 60000.");
    return;
  }
  later_timer *lt = malloc(sizeof *lt);
  if (!lt || !(lt->pending = gql_out_pending(out))) {
    free(lt);
    return;
  }
  lt->request = gql_http_request_of(info);
  uv_timer_init(gql_http_loop(info), &lt->timer);
  lt->timer.data = lt;
  uv_timer_start(&lt->timer, later_fire, (uint64_t)ms, 0);
}

int main(int argc, char **argv) {
  int port = argc > 1 ? atoi(argv[1]) : 4002;
  gql_schema *schema = NULL;
  if (gql_schema_from_sdl(sdl, sizeof sdl - 1, NULL, &schema, NULL) < 0) {
    fprintf(stderr, "auth_server: bad schema\n");
    return 1;
  }
  int rc = 0;
  rc |= gql_schema_set_resolver(schema, "Query", "me", me, NULL,
                                GQL_RESOLVER_SYNC);
  rc |= gql_schema_set_resolver(schema, "Query", "header", header, NULL,
                                GQL_RESOLVER_SYNC);
  rc |= gql_schema_set_resolver(schema, "Query", "method", method, NULL,
                                GQL_RESOLVER_SYNC);
  rc |= gql_schema_set_resolver(schema, "Query", "path", path, NULL,
                                GQL_RESOLVER_SYNC);
  rc |= gql_schema_set_resolver(schema, "Query", "peer", peer, NULL,
                                GQL_RESOLVER_SYNC);
  rc |= gql_schema_set_resolver(schema, "Query", "meLater", me_later, NULL, 0);
  rc |= gql_schema_set_resolver(schema, "Query", "claim", claim, NULL,
                                GQL_RESOLVER_SYNC);
  if (rc < 0) {
    fprintf(stderr, "auth_server: cannot set resolvers\n");
    gql_schema_free(schema);
    return 1;
  }
  gql_http_hooks hooks = {.worker_start = worker_start,
                          .worker_free = worker_free,
                          .execute = authenticate,
                          .response = on_response};
  gql_http_options opt = {.port = port == 0 ? -1 : port,
                          .hooks = &hooks,
                          .banner = "auth_server: serving"};
  gql_http_server *srv = NULL;
  if ((rc = gql_http_server_new(schema, &opt, &srv)) == 0)
    rc = gql_http_server_run(srv); /* until SIGINT / SIGTERM */
  if (rc < 0)
    fprintf(stderr, "auth_server: %s\n", gql_strerror(rc));
  gql_http_server_free(srv);
  gql_schema_free(schema);
  return rc < 0 ? 1 : 0;
}
