/* The four federation benchmark subgraphs (accounts, inventory, products,
 * reviews) written with gql's C API and served from one process, as the
 * benchmark's Rust binary and ../shared/gateway-bench/peers/subgraphs.js do:
 * POST /accounts, /inventory, /products, /reviews and GET /health on
 * 127.0.0.1:4200. Same data and quirks (see bench/gateway/README.md).
 *
 * gql's HTTP server serves one schema at one path, so this program has its
 * own small HTTP/1.1 front (libuv + llhttp, keep-alive, pipelining) that
 * picks the subgraph by path and runs prepared operations, cached per query
 * text. GET /stats answers the requests and entity representations each
 * subgraph was sent ({"/accounts":{"requests":N,"representations":M},...});
 * POST /reset zeroes them. --delay-ms N holds every subgraph answer N ms on
 * a libuv timer (the benchmark's constant-latency scenario).
 * Usage: bench_subgraphs [--port N] [--reviews reviews-data.json]
 *                        [--delay-ms N] */
#include "core/core.h"
#include "federation/subgraph.h"
#include "json/json.h"

#include <llhttp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#define LINK                                                                   \
  "extend schema @link(url: \"https://specs.apollo.dev/federation/v2.3\", "    \
  "import: [\"@key\", \"@tag\", \"@shareable\", \"@inaccessible\", "           \
  "\"@override\", \"@external\", \"@provides\", \"@requires\", "               \
  "\"@composeDirective\", \"@interfaceObject\"])\n"

static const char accounts_sdl[] =
    LINK "extend type Query { me: User  user(id: ID!): User  users: [User] }\n"
         "type User @key(fields: \"id\") { id: ID!  name: String  username: "
         "String  birthday: Int }";
static const char inventory_sdl[] =
    LINK "extend type Product @key(fields: \"upc\") { upc: String! @external  "
         "weight: Int @external  price: Int @external  inStock: Boolean  "
         "shippingEstimate: Int @requires(fields: \"price weight\") }";
static const char products_sdl[] =
    LINK "type Product @key(fields: \"upc\") { upc: String!  name: String  "
         "price: Int  weight: Int }\n"
         "extend type Query { topProducts(first: Int = 5): [Product] }";
static const char reviews_sdl[] =
    LINK "extend type Product @key(fields: \"upc\") { upc: String! @external  "
         "reviews: [Review] }\n"
         "type Review @key(fields: \"id\") { id: ID!  body: String  product: "
         "Product  author: User @provides(fields: \"username\") }\n"
         "extend type User @key(fields: \"id\") { id: ID! @external  "
         "username: String @external  reviews: [Review] }";

/* ---------------------------------------------------------------- data */

typedef struct user {
  const char *id, *name, *username;
} user;
static const user users[] = {
    {"1", "Uri Goldshtein", "urigo"},       {"2", "Dotan Simha", "dotansimha"},
    {"3", "Kamil Kisiela", "kamilkisiela"}, {"4", "Arda Tanrikulu", "ardatan"},
    {"5", "Gil Gardosh", "gilgardosh"},     {"6", "Laurin Quast", "laurin"}};
#define NUSERS 6

typedef struct product {
  const char *upc, *name;
  int price, weight;
  bool in_stock;
} product;
static const product products[] = {
    {"1", "Table", 899, 100, true},   {"2", "Couch", 1299, 1000, false},
    {"3", "Glass", 15, 20, false},    {"4", "Chair", 499, 100, false},
    {"5", "TV", 1299, 1000, true},    {"6", "Lamp", 6999, 300, true},
    {"7", "Grill", 3999, 2000, true}, {"8", "Fridge", 100000, 6000, false},
    {"9", "Sofa", 9999, 800, true}};
#define NPRODUCTS 9

typedef struct review {
  gql_str id, upc, body;
} review;

/* What the reviews subgraph knows of users and products. */
typedef struct ref {
  gql_str key;          /* User.id or Product.upc */
  const char *username; /* User only */
} ref;

typedef struct reviews_data {
  review *items;
  size_t count;
} reviews_data;

static gql_str str_of(const gql_value *v) {
  return gql_value_string(v);
}
static bool str_is(gql_str s, const char *c) {
  return s.len == strlen(c) && memcmp(s.ptr, c, s.len) == 0;
}
static void out_cstr(gql_out *out, const char *s) {
  gql_out_string(out, s, strlen(s));
}

/* ------------------------------------------------------------ accounts */

static const user *user_by_id(gql_str id) {
  for (int i = 0; i < NUSERS; i++)
    if (str_is(id, users[i].id))
      return &users[i];
  return NULL;
}

static void q_me(const gql_resolve_info *info, const void *p, gql_out *out) {
  gql_out_object(out, &users[0], GQL_TYPE_AUTO);
}
static void q_user(const gql_resolve_info *info, const void *p, gql_out *out) {
  const user *u = user_by_id(str_of(gql_arg(info, "id")));
  if (u)
    gql_out_object(out, u, GQL_TYPE_AUTO);
}
static void user_item(const void *list, size_t i, gql_out *out) {
  gql_out_object(out, &((const user *)list)[i], GQL_TYPE_AUTO);
}
static void q_users(const gql_resolve_info *info, const void *p, gql_out *out) {
  gql_out_list(out, users, NUSERS, user_item);
}
static void u_id(const gql_resolve_info *info, const void *p, gql_out *out) {
  out_cstr(out, ((const user *)p)->id);
}
static void u_name(const gql_resolve_info *info, const void *p, gql_out *out) {
  out_cstr(out, ((const user *)p)->name);
}
static void u_username(const gql_resolve_info *info, const void *p,
                       gql_out *out) {
  out_cstr(out, ((const user *)p)->username);
}
static void u_birthday(const gql_resolve_info *info, const void *p,
                       gql_out *out) {
  gql_out_int(out, 1234567890);
}
static void user_entity(const gql_entity_call *call, gql_out *out) {
  const user *u =
      user_by_id(str_of(gql_value_get(call->representation, "id", 2)));
  if (u)
    gql_out_object(out, u, call->type);
  else
    gql_out_null(out);
}

/* ------------------------------------------------------------ products */

static const product *product_by_upc(gql_str upc) {
  for (int i = 0; i < NPRODUCTS; i++)
    if (str_is(upc, products[i].upc))
      return &products[i];
  return NULL;
}

static void product_item(const void *list, size_t i, gql_out *out) {
  gql_out_object(out, &((const product *)list)[i], GQL_TYPE_AUTO);
}
static void q_top(const gql_resolve_info *info, const void *p, gql_out *out) {
  int64_t first = 5;
  const gql_value *f = gql_arg(info, "first");
  if (f && !gql_value_int(f, &first))
    first = 5;
  if (first < 0)
    first = 0;
  if (first > NPRODUCTS)
    first = NPRODUCTS;
  gql_out_list(out, products, (size_t)first, product_item);
}
static void p_upc(const gql_resolve_info *info, const void *p, gql_out *out) {
  out_cstr(out, ((const product *)p)->upc);
}
static void p_name(const gql_resolve_info *info, const void *p, gql_out *out) {
  out_cstr(out, ((const product *)p)->name);
}
static void p_price(const gql_resolve_info *info, const void *p, gql_out *out) {
  gql_out_int(out, ((const product *)p)->price);
}
static void p_weight(const gql_resolve_info *info, const void *p,
                     gql_out *out) {
  gql_out_int(out, ((const product *)p)->weight);
}
static void product_entity(const gql_entity_call *call, gql_out *out) {
  const product *p =
      product_by_upc(str_of(gql_value_get(call->representation, "upc", 3)));
  if (p)
    gql_out_object(out, p, call->type);
  else
    gql_out_null(out);
}

/* ----------------------------------------------------------- inventory */

/* The Rust entity resolver keeps only the key: price and weight stay null,
 * whatever the representation says, so shippingEstimate is always null. */
typedef struct stock {
  gql_str upc;
  const product *p; /* NULL: unknown upc, inStock null */
} stock;

static void stock_entity(const gql_entity_call *call, gql_out *out) {
  stock *s = gql_arena_alloc(call->arena, sizeof *s);
  if (!s) {
    gql_out_error(out, "out of memory");
    return;
  }
  s->upc = str_of(gql_value_get(call->representation, "upc", 3));
  s->p = product_by_upc(s->upc);
  gql_out_object(out, s, call->type);
}
static void s_upc(const gql_resolve_info *info, const void *p, gql_out *out) {
  gql_str u = ((const stock *)p)->upc;
  gql_out_string(out, u.ptr, u.len);
}
static void s_in_stock(const gql_resolve_info *info, const void *p,
                       gql_out *out) {
  const stock *s = p;
  if (s->p)
    gql_out_bool(out, s->p->in_stock);
  else
    gql_out_null(out);
}
static void s_null(const gql_resolve_info *info, const void *p, gql_out *out) {
  gql_out_null(out); /* price, weight, and shippingEstimate from them */
}

/* ------------------------------------------------------------- reviews */

static const ref author = {{"1", 1}, "urigo"};

static void review_item(const void *list, size_t i, gql_out *out) {
  gql_out_object(out, ((const review *const *)list)[i], GQL_TYPE_AUTO);
}
static void review_array_item(const void *list, size_t i, gql_out *out) {
  gql_out_object(out, &((const review *)list)[i], GQL_TYPE_AUTO);
}
static void r_id(const gql_resolve_info *info, const void *p, gql_out *out) {
  gql_out_string(out, ((const review *)p)->id.ptr, ((const review *)p)->id.len);
}
static void r_body(const gql_resolve_info *info, const void *p, gql_out *out) {
  gql_out_string(out, ((const review *)p)->body.ptr,
                 ((const review *)p)->body.len);
}
static void r_product(const gql_resolve_info *info, const void *p,
                      gql_out *out) {
  ref *r = gql_arena_alloc(gql_info_arena(info), sizeof *r);
  if (!r) {
    gql_out_error(out, "out of memory");
    return;
  }
  *r = (ref){((const review *)p)->upc, NULL};
  gql_out_object(out, r, GQL_TYPE_AUTO);
}
static void r_author(const gql_resolve_info *info, const void *p,
                     gql_out *out) {
  gql_out_object(out, &author, GQL_TYPE_AUTO);
}
static void ref_key(const gql_resolve_info *info, const void *p, gql_out *out) {
  gql_out_string(out, ((const ref *)p)->key.ptr, ((const ref *)p)->key.len);
}
static void ru_username(const gql_resolve_info *info, const void *p,
                        gql_out *out) {
  out_cstr(out, ((const ref *)p)->username);
}
/* Every user's reviews are the first two. */
static void ru_reviews(const gql_resolve_info *info, const void *p,
                       gql_out *out) {
  const reviews_data *d = gql_info_data(info);
  gql_out_list(out, d->items, d->count < 2 ? d->count : 2, review_array_item);
}
static void rp_reviews(const gql_resolve_info *info, const void *p,
                       gql_out *out) {
  const reviews_data *d = gql_info_data(info);
  gql_str upc = ((const ref *)p)->key;
  const review **list =
      gql_arena_alloc(gql_info_arena(info), (d->count + 1) * sizeof *list);
  if (!list) {
    gql_out_error(out, "out of memory");
    return;
  }
  size_t n = 0;
  for (size_t i = 0; i < d->count; i++)
    if (gql_str_eq(d->items[i].upc, upc))
      list[n++] = &d->items[i];
  gql_out_list(out, list, n, review_item);
}
static void review_entity(const gql_entity_call *call, gql_out *out) {
  const reviews_data *d = call->data;
  gql_str id = str_of(gql_value_get(call->representation, "id", 2));
  for (size_t i = 0; i < d->count; i++)
    if (gql_str_eq(d->items[i].id, id)) {
      gql_out_object(out, &d->items[i], call->type);
      return;
    }
  gql_out_null(out);
}
/* A User entity of any id: username "user" (never in a correct answer). */
static void ruser_entity(const gql_entity_call *call, gql_out *out) {
  ref *r = gql_arena_alloc(call->arena, sizeof *r);
  if (!r) {
    gql_out_error(out, "out of memory");
    return;
  }
  *r = (ref){str_of(gql_value_get(call->representation, "id", 2)), "user"};
  gql_out_object(out, r, call->type);
}
static void rproduct_entity(const gql_entity_call *call, gql_out *out) {
  ref *r = gql_arena_alloc(call->arena, sizeof *r);
  if (!r) {
    gql_out_error(out, "out of memory");
    return;
  }
  *r = (ref){str_of(gql_value_get(call->representation, "upc", 3)), NULL};
  gql_out_object(out, r, call->type);
}

/* ------------------------------------------------------- building them */

typedef struct field_res {
  const char *type, *field;
  gql_resolver_fn fn;
} field_res;

typedef struct prepared_entry {
  char *query;
  size_t len;
  gql_prepared *p;
} prepared_entry;

#define CACHE_SLOTS 64

typedef struct subgraph {
  const char *path;
  gql_subgraph *sg;
  prepared_entry cache[CACHE_SLOTS]; /* by query text; full: not cached */
  unsigned ncached;
  uint64_t requests;        /* GraphQL POSTs answered */
  uint64_t representations; /* items of the list variables (_entities) */
} subgraph;

static int make(subgraph *out, const char *path, const char *sdl,
                const field_res *fields, size_t nfields, void *data) {
  gql_arena *a = gql_arena_new(NULL);
  gql_error_list errs;
  gql_error_list_init(&errs, a, 10);
  int rc = gql_subgraph_build(sdl, strlen(sdl), NULL, &out->sg, &errs);
  if (rc < 0) {
    fprintf(stderr, "bench_subgraphs: %s: %s\n", path,
            errs.count ? errs.items[0].message : gql_strerror(rc));
    gql_arena_free(a);
    return rc;
  }
  gql_arena_free(a);
  out->path = path;
  for (size_t i = 0; i < nfields; i++) {
    rc = gql_schema_set_resolver(gql_subgraph_schema(out->sg), fields[i].type,
                                 fields[i].field, fields[i].fn, data,
                                 GQL_RESOLVER_SYNC);
    if (rc < 0) {
      fprintf(stderr, "bench_subgraphs: %s: %s.%s: %s\n", path, fields[i].type,
              fields[i].field, gql_strerror(rc));
      return rc;
    }
  }
  return 0;
}

static int load_reviews(const char *path, gql_arena *a, reviews_data *d) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "bench_subgraphs: cannot open %s\n", path);
    return GQL_EIO;
  }
  gql_buf b;
  gql_buf_init(&b, NULL);
  char chunk[4096];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
    gql_buf_append(&b, chunk, n);
  fclose(f);
  char *text = gql_arena_strndup(a, b.data ? b.data : "", b.len);
  size_t len = b.len;
  gql_buf_free(&b);
  const gql_value *v = NULL;
  if (!text || gql_value_parse(a, text, len, &v) < 0 ||
      gql_value_kind_of(v) != GQL_VALUE_LIST) {
    fprintf(stderr, "bench_subgraphs: %s: not a JSON array\n", path);
    return GQL_EJSON;
  }
  d->count = gql_value_count(v);
  d->items = gql_arena_alloc(a, (d->count + 1) * sizeof *d->items);
  if (!d->items)
    return GQL_ENOMEM;
  for (size_t i = 0; i < d->count; i++) {
    const gql_value *r = gql_value_item(v, i);
    d->items[i] = (review){str_of(gql_value_get(r, "id", 2)),
                           str_of(gql_value_get(r, "upc", 3)),
                           str_of(gql_value_get(r, "body", 4))};
  }
  return 0;
}

static int make_all(subgraph sgs[4], reviews_data *rd) {
  static const field_res acc[] = {
      {"Query", "me", q_me},           {"Query", "user", q_user},
      {"Query", "users", q_users},     {"User", "id", u_id},
      {"User", "name", u_name},        {"User", "username", u_username},
      {"User", "birthday", u_birthday}};
  static const field_res inv[] = {{"Product", "upc", s_upc},
                                  {"Product", "inStock", s_in_stock},
                                  {"Product", "price", s_null},
                                  {"Product", "weight", s_null},
                                  {"Product", "shippingEstimate", s_null}};
  static const field_res prd[] = {{"Query", "topProducts", q_top},
                                  {"Product", "upc", p_upc},
                                  {"Product", "name", p_name},
                                  {"Product", "price", p_price},
                                  {"Product", "weight", p_weight}};
  static const field_res rev[] = {{"Review", "id", r_id},
                                  {"Review", "body", r_body},
                                  {"Review", "product", r_product},
                                  {"Review", "author", r_author},
                                  {"User", "id", ref_key},
                                  {"User", "username", ru_username},
                                  {"User", "reviews", ru_reviews},
                                  {"Product", "upc", ref_key},
                                  {"Product", "reviews", rp_reviews}};
#define N(a) (sizeof a / sizeof a[0])
  if (make(&sgs[0], "/accounts", accounts_sdl, acc, N(acc), NULL) < 0 ||
      make(&sgs[1], "/inventory", inventory_sdl, inv, N(inv), NULL) < 0 ||
      make(&sgs[2], "/products", products_sdl, prd, N(prd), NULL) < 0 ||
      make(&sgs[3], "/reviews", reviews_sdl, rev, N(rev), rd) < 0)
    return -1;
#undef N
  if (gql_subgraph_set_entity(sgs[0].sg, "User", user_entity, NULL,
                              GQL_RESOLVER_SYNC) < 0 ||
      gql_subgraph_set_entity(sgs[1].sg, "Product", stock_entity, NULL,
                              GQL_RESOLVER_SYNC) < 0 ||
      gql_subgraph_set_entity(sgs[2].sg, "Product", product_entity, NULL,
                              GQL_RESOLVER_SYNC) < 0 ||
      gql_subgraph_set_entity(sgs[3].sg, "Review", review_entity, rd,
                              GQL_RESOLVER_SYNC) < 0 ||
      gql_subgraph_set_entity(sgs[3].sg, "User", ruser_entity, NULL,
                              GQL_RESOLVER_SYNC) < 0 ||
      gql_subgraph_set_entity(sgs[3].sg, "Product", rproduct_entity, NULL,
                              GQL_RESOLVER_SYNC) < 0)
    return -1;
  return 0;
}

/* ------------------------------------------------------------ requests */

typedef struct response {
  gql_buf *body;
} response;

static void on_done(void *ud, const char *json, size_t len, bool has_errors) {
  gql_buf_append(((response *)ud)->body, json, len);
}

static const gql_prepared *prepared_for(subgraph *s, gql_str query,
                                        gql_arena *a, gql_str *errors) {
  for (unsigned i = 0; i < s->ncached; i++)
    if (s->cache[i].len == query.len &&
        memcmp(s->cache[i].query, query.ptr, query.len) == 0)
      return s->cache[i].p;
  gql_prepared *p = NULL;
  gql_errors errs = {.arena = a};
  if (gql_prepare(gql_subgraph_schema(s->sg), query.ptr, query.len, NULL, NULL,
                  &p, &errs) < 0) {
    if (errs.count)
      gql_errors_response(&errs, NULL, a, errors);
    return NULL;
  }
  if (s->ncached < CACHE_SLOTS) {
    char *copy = malloc(query.len + 1);
    if (copy) {
      memcpy(copy, query.ptr, query.len);
      s->cache[s->ncached++] = (prepared_entry){copy, query.len, p};
      return p;
    }
  }
  /* The cache is full: the caller runs the query the one-off way. */
  gql_prepared_free(p);
  return NULL;
}

/* Runs the GraphQL request in `body` against `s`; the response JSON goes
 * to `out`. */
static void run_graphql(subgraph *s, gql_str body, gql_buf *out) {
  gql_arena *a = gql_arena_new(NULL);
  const gql_value *req = NULL;
  if (!a || gql_value_parse(a, body.ptr, body.len, &req) < 0 ||
      gql_value_kind_of(gql_value_get(req, "query", 5)) != GQL_VALUE_STRING) {
    gql_buf_puts(out, "{\"errors\":[{\"message\":\"Expected a JSON body "
                      "with a query string.\"}]}");
    gql_arena_free(a);
    return;
  }
  gql_str query = gql_value_string(gql_value_get(req, "query", 5));
  const gql_value *vars = gql_value_get(req, "variables", 9);
  /* a gateway sends representations as list variables (one per _entities
   * field when it alias-batches): count their items */
  for (size_t i = 0; i < gql_value_count(vars); i++)
    if (gql_value_kind_of(gql_value_item(vars, i)) == GQL_VALUE_LIST)
      s->representations += gql_value_count(gql_value_item(vars, i));
  gql_str errors = {0};
  const gql_prepared *p = prepared_for(s, query, a, &errors);
  if (!p) {
    if (errors.ptr) {
      gql_buf_put_str(out, errors);
    } else { /* cache full: prepare, run, free */
      gql_str json;
      gql_graphql(gql_subgraph_schema(s->sg), query.ptr, query.len, NULL, NULL,
                  0, NULL, NULL, a, &json);
      gql_buf_put_str(out, json);
    }
    gql_arena_free(a);
    return;
  }
  response r = {out};
  gql_execute_params params = {
      .variables = gql_value_kind_of(vars) == GQL_VALUE_OBJECT ? vars : NULL,
      .arena = a,
      .on_done = on_done,
      .ud = &r};
  if (gql_execute(p, &params) < 0 && out->len == 0)
    gql_buf_puts(out, "{\"errors\":[{\"message\":\"execution failed\"}]}");
  gql_arena_free(a);
}

/* ------------------------------------------------------------ HTTP/1.1 */

typedef struct server {
  subgraph sgs[4];
  llhttp_settings_t settings;
  uv_loop_t *loop;
  uint64_t delay_ms; /* 0: answer at once */
} server;

typedef struct conn {
  uv_tcp_t tcp;
  llhttp_t parser;
  server *srv;
  gql_buf url, body;
  bool close_after; /* a request said Connection: close, or an error */
  bool closing, closed;
  bool finish_wanted; /* finish_conn once the delayed answers are out */
  unsigned delayed;   /* answers waiting on their timer */
  uv_shutdown_t shutdown;
} conn;

typedef struct write_req {
  uv_write_t w;
  gql_buf data;
} write_req;

/* An answer held back --delay-ms; timers of one timeout fire in the order
 * they were started, so pipelined answers keep their order. */
typedef struct delayed_write {
  uv_timer_t timer;
  conn *c;
  write_req *r;
} delayed_write;

static void conn_free_if_done(conn *c) {
  if (c->closed && c->delayed == 0) {
    gql_buf_free(&c->url);
    gql_buf_free(&c->body);
    free(c);
  }
}

static void on_closed(uv_handle_t *h) {
  conn *c = (conn *)h;
  c->closed = true;
  conn_free_if_done(c);
}

static void close_conn(conn *c) {
  if (!c->closing) {
    c->closing = true;
    uv_close((uv_handle_t *)&c->tcp, on_closed);
  }
}

static void on_shutdown(uv_shutdown_t *req, int status) {
  close_conn(req->data);
}

/* Closes once the responses queued before have been written. */
static void finish_conn(conn *c) {
  if (c->closing)
    return;
  if (c->delayed > 0) {
    c->finish_wanted = true;
    uv_read_stop((uv_stream_t *)&c->tcp);
    return;
  }
  uv_read_stop((uv_stream_t *)&c->tcp);
  c->shutdown.data = c;
  if (uv_shutdown(&c->shutdown, (uv_stream_t *)&c->tcp, on_shutdown) < 0)
    close_conn(c);
}

static void on_written(uv_write_t *w, int status) {
  write_req *r = (write_req *)w;
  gql_buf_free(&r->data);
  free(r);
}

static void write_now(conn *c, write_req *r) {
  uv_buf_t b = uv_buf_init(r->data.data, (unsigned)r->data.len);
  if (uv_write(&r->w, (uv_stream_t *)&c->tcp, &b, 1, on_written) < 0) {
    gql_buf_free(&r->data);
    free(r);
  }
}

static void on_delay_closed(uv_handle_t *h) {
  delayed_write *d = (delayed_write *)h;
  conn *c = d->c;
  free(d);
  c->delayed--;
  if (c->finish_wanted && c->delayed == 0) {
    c->finish_wanted = false;
    finish_conn(c);
  }
  conn_free_if_done(c);
}

static void on_delay(uv_timer_t *t) {
  delayed_write *d = (delayed_write *)t;
  conn *c = d->c;
  if (!c->closing) {
    write_now(c, d->r);
  } else {
    gql_buf_free(&d->r->data);
    free(d->r);
  }
  uv_close((uv_handle_t *)&d->timer, on_delay_closed);
}

static void respond(conn *c, int status, const char *ctype, const char *body,
                    size_t len, bool keep_alive, bool delay) {
  write_req *r = malloc(sizeof *r);
  if (!r)
    return;
  gql_buf_init(&r->data, NULL);
  gql_buf_printf(&r->data,
                 "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: "
                 "%zu\r\n%s\r\n",
                 status,
                 status == 200   ? "OK"
                 : status == 404 ? "Not Found"
                                 : "Internal Server Error",
                 ctype, len, keep_alive ? "" : "Connection: close\r\n");
  gql_buf_append(&r->data, body, len);
  if (r->data.failed) {
    gql_buf_free(&r->data);
    free(r);
    return;
  }
  /* an answer behind delayed ones waits too, to keep their order */
  if ((delay || c->delayed > 0) && c->srv->delay_ms > 0) {
    delayed_write *d = malloc(sizeof *d);
    if (d) {
      d->c = c;
      d->r = r;
      uv_timer_init(c->srv->loop, &d->timer);
      c->delayed++;
      uv_timer_start(&d->timer, on_delay, c->srv->delay_ms, 0);
      return;
    }
  }
  write_now(c, r);
}

static int on_begin(llhttp_t *p) {
  conn *c = p->data;
  c->url.len = 0;
  c->body.len = 0;
  return 0;
}
static int on_url(llhttp_t *p, const char *at, size_t len) {
  gql_buf_append(&((conn *)p->data)->url, at, len);
  return 0;
}
static int on_body(llhttp_t *p, const char *at, size_t len) {
  conn *c = p->data;
  if (c->body.len + len > ((size_t)16 << 20))
    return -1; /* 16 MiB is plenty for any gateway request */
  gql_buf_append(&c->body, at, len);
  return 0;
}
static int on_complete(llhttp_t *p) {
  conn *c = p->data;
  bool keep = llhttp_should_keep_alive(p);
  if (!keep)
    c->close_after = true;
  gql_str path = gql_str_from(c->url.data, c->url.len);
  for (size_t i = 0; i < path.len; i++)
    if (path.ptr[i] == '?')
      path.len = i;
  if (str_is(path, "/health")) {
    respond(c, 200, "text/plain", "OK", 2, keep, false);
    return 0;
  }
  if (str_is(path, "/stats") || str_is(path, "/reset")) {
    bool reset = str_is(path, "/reset");
    gql_buf out;
    gql_buf_init(&out, NULL);
    gql_buf_putc(&out, '{');
    for (int i = 0; i < 4; i++) {
      subgraph *s = &c->srv->sgs[i];
      if (reset)
        s->requests = s->representations = 0;
      gql_buf_printf(&out,
                     "%s\"%s\":{\"requests\":%llu,\"representations\":%llu}",
                     i ? "," : "", s->path, (unsigned long long)s->requests,
                     (unsigned long long)s->representations);
    }
    gql_buf_putc(&out, '}');
    respond(c, out.failed ? 500 : 200, "application/json",
            out.data ? out.data : "", out.failed ? 0 : out.len, keep, false);
    gql_buf_free(&out);
    return 0;
  }
  for (int i = 0; i < 4; i++) {
    subgraph *s = &c->srv->sgs[i];
    if (!str_is(path, s->path) || p->method != HTTP_POST)
      continue;
    gql_buf out;
    gql_buf_init(&out, NULL);
    s->requests++;
    run_graphql(s, gql_str_from(c->body.data, c->body.len), &out);
    respond(c, 200, "application/json", out.data ? out.data : "", out.len, keep,
            true);
    gql_buf_free(&out);
    return 0;
  }
  respond(c, 404, "text/plain", "not found", 9, keep, false);
  return 0;
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf) {
  buf->base = malloc(65536);
  buf->len = buf->base ? 65536 : 0;
}

static void on_read(uv_stream_t *st, ssize_t n, const uv_buf_t *buf) {
  conn *c = (conn *)st;
  if (n > 0) {
    llhttp_errno_t e = llhttp_execute(&c->parser, buf->base, (size_t)n);
    if (e != HPE_OK || c->close_after)
      finish_conn(c); /* the responses written so far go out first */
  } else if (n < 0) {
    finish_conn(c);
  }
  free(buf->base);
}

static void on_connection(uv_stream_t *listener, int status) {
  server *srv = listener->data;
  if (status < 0)
    return;
  conn *c = calloc(1, sizeof *c);
  if (!c)
    return;
  c->srv = srv;
  gql_buf_init(&c->url, NULL);
  gql_buf_init(&c->body, NULL);
  uv_tcp_init(srv->loop, &c->tcp);
  if (uv_accept(listener, (uv_stream_t *)&c->tcp) < 0) {
    close_conn(c);
    return;
  }
  uv_tcp_nodelay(&c->tcp, 1);
  llhttp_init(&c->parser, HTTP_REQUEST, &srv->settings);
  c->parser.data = c;
  uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
}

static void on_signal(uv_signal_t *h, int signum) {
  uv_stop(h->loop);
}

/* A delay of 0 to 60000 ms. */
static bool parse_ms(const char *text, uint64_t *out) {
  char *end;
  unsigned long v = strtoul(text, &end, 10);
  if (end == text || *end || v > 60000 || text[0] == '-')
    return false;
  *out = v;
  return true;
}

int main(int argc, char **argv) {
  int port = 4200;
  uint64_t delay_ms = 0;
  const char *reviews_path =
      BENCH_SHARED_DIR "/gateway-bench/peers/reviews-data.json";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--port") == 0)
      port = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--reviews") == 0)
      reviews_path = argv[i + 1];
    else if (strcmp(argv[i], "--delay-ms") == 0 &&
             parse_ms(argv[i + 1], &delay_ms))
      ;
    else {
      fprintf(stderr, "usage: bench_subgraphs [--port N] [--reviews FILE] "
                      "[--delay-ms N]\n");
      return 2;
    }
  }
  if (argc % 2 == 0) {
    fprintf(stderr, "bench_subgraphs: %s needs a value\n", argv[argc - 1]);
    return 2;
  }
  server srv;
  memset(&srv, 0, sizeof srv);
  srv.delay_ms = delay_ms;
  gql_arena *data_arena = gql_arena_new(NULL);
  reviews_data rd = {0};
  if (!data_arena || load_reviews(reviews_path, data_arena, &rd) < 0 ||
      make_all(srv.sgs, &rd) < 0)
    return 1;
  llhttp_settings_init(&srv.settings);
  srv.settings.on_message_begin = on_begin;
  srv.settings.on_url = on_url;
  srv.settings.on_body = on_body;
  srv.settings.on_message_complete = on_complete;
  srv.loop = uv_default_loop();
  signal(SIGPIPE, SIG_IGN);
  uv_tcp_t listener;
  uv_tcp_init(srv.loop, &listener);
  listener.data = &srv;
  struct sockaddr_in addr;
  uv_ip4_addr("127.0.0.1", port, &addr);
  int rc = uv_tcp_bind(&listener, (const struct sockaddr *)&addr, 0);
  if (rc == 0)
    rc = uv_listen((uv_stream_t *)&listener, 1024, on_connection);
  if (rc < 0) {
    fprintf(stderr, "bench_subgraphs: cannot listen on 127.0.0.1:%d: %s\n",
            port, uv_strerror(rc));
    return 1;
  }
  uv_signal_t sigint, sigterm;
  uv_signal_init(srv.loop, &sigint);
  uv_signal_start(&sigint, on_signal, SIGINT);
  uv_signal_init(srv.loop, &sigterm);
  uv_signal_start(&sigterm, on_signal, SIGTERM);
  printf("bench_subgraphs: /accounts /inventory /products /reviews on "
         "http://127.0.0.1:%d (answers delayed %llu ms)\n",
         port, (unsigned long long)delay_ms);
  fflush(stdout);
  uv_run(srv.loop, UV_RUN_DEFAULT);
  for (int i = 0; i < 4; i++) {
    for (unsigned j = 0; j < srv.sgs[i].ncached; j++) {
      free(srv.sgs[i].cache[j].query);
      gql_prepared_free(srv.sgs[i].cache[j].p);
    }
    gql_subgraph_free(srv.sgs[i].sg);
  }
  gql_arena_free(data_arena);
  return 0;
}
