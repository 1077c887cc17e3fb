/* deep_trace (bench/README.md of the shared folder): the deep author /
 * posts / comments query, 5 x 5 x 4 items, C resolvers for the lists, the
 * document prepared once. Times execution untraced and traced in three
 * configurations (default, collapse off, depth 2); the traced runs include
 * span encoding and queueing (the exporter thread sends to a null
 * transport). Prints: config, median us per operation, ratio to untraced.
 * With a third argument ab:CONFIG: untraced and CONFIG alternate in short
 * rounds and the median of the trials' time ratios is printed. */
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct comment {
  char id[8], body[32];
} comment;
typedef struct post {
  char id[8], title[32];
  comment comments[4];
} post;
typedef struct author {
  char id[8], name[32];
  post posts[5];
} author;
typedef struct data {
  author authors[5];
} data;

static void author_item(const void *list, size_t i, gql_out *out) {
  gql_out_object(out, &((const author *)list)[i], GQL_TYPE_AUTO);
}
static void post_item(const void *list, size_t i, gql_out *out) {
  gql_out_object(out, &((const post *)list)[i], GQL_TYPE_AUTO);
}
static void comment_item(const void *list, size_t i, gql_out *out) {
  gql_out_object(out, &((const comment *)list)[i], GQL_TYPE_AUTO);
}

static void q_authors(const gql_resolve_info *info, const void *parent,
                      gql_out *out) {
  gql_out_list(out, ((const data *)parent)->authors, 5, author_item);
}
static void a_posts(const gql_resolve_info *info, const void *parent,
                    gql_out *out) {
  gql_out_list(out, ((const author *)parent)->posts, 5, post_item);
}
static void p_comments(const gql_resolve_info *info, const void *parent,
                       gql_out *out) {
  gql_out_list(out, ((const post *)parent)->comments, 4, comment_item);
}
/* Scalars: the id and string members at fixed offsets (data pointer). */
static void str_at(const gql_resolve_info *info, const void *parent,
                   gql_out *out) {
  size_t off = (size_t)(uintptr_t)gql_info_data(info);
  const char *s = (const char *)parent + off;
  gql_out_string(out, s, strlen(s));
}

static const char sdl[] =
    "type Query { authors: [Author!]! }\n"
    "type Author { id: ID! name: String! posts: [Post!]! }\n"
    "type Post { id: ID! title: String! comments: [Comment!]! }\n"
    "type Comment { id: ID! body: String! }\n";
static const char query[] = "query Deep { authors { id name posts { id title "
                            "comments { id body } } } }";

typedef struct run {
  gql_prepared *p;
  data *d;
  gql_tracer *tracer;
  const gql_trace_options *o; /* NULL: untraced */
  gql_arena *arena;
  gql_output out;
  size_t len;
} run;

static void on_done(void *ud, const char *json, size_t len, bool errors) {
  ((run *)ud)->len = len;
}

static void one(void *arg) {
  run *r = arg;
  gql_arena_reset(r->arena);
  gql_trace *tr = r->o ? gql_trace_begin(r->tracer, r->o) : NULL;
  gql_trace_set_operation(tr, r->p, NULL, 0);
  gql_execute_params params = {.root_value = r->d,
                               .arena = r->arena,
                               .output = &r->out,
                               .trace = tr,
                               .on_done = on_done,
                               .ud = r};
  if (gql_execute(r->p, &params) != 0)
    abort();
  gql_trace_end(tr);
}

/* The loop callgrind measures (cg:CONFIG): --toggle-collect=cg_ops. */
static __attribute__((noinline)) void cg_ops(run *r, int n) {
  for (int k = 0; k < n; k++)
    one(r);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int null_transport(void *ud, const char *json, size_t len) {
  (*(size_t *)ud) += len;
  return 0;
}

int main(int argc, char **argv) {
  int iters = argc > 1 ? atoi(argv[1]) : 2000;
  int trials = argc > 2 ? atoi(argv[2]) : 11;
  gql_schema *s;
  if (gql_schema_from_sdl(sdl, sizeof sdl - 1, NULL, &s, NULL))
    return 1;
  gql_schema_set_resolver(s, "Query", "authors", q_authors, NULL,
                          GQL_RESOLVER_SYNC);
  gql_schema_set_resolver(s, "Author", "posts", a_posts, NULL,
                          GQL_RESOLVER_SYNC);
  gql_schema_set_resolver(s, "Post", "comments", p_comments, NULL,
                          GQL_RESOLVER_SYNC);
  gql_schema_set_resolver(s, "Author", "id", str_at,
                          (void *)offsetof(author, id), GQL_RESOLVER_SYNC);
  gql_schema_set_resolver(s, "Author", "name", str_at,
                          (void *)offsetof(author, name), GQL_RESOLVER_SYNC);
  gql_schema_set_resolver(s, "Post", "id", str_at, (void *)offsetof(post, id),
                          GQL_RESOLVER_SYNC);
  gql_schema_set_resolver(s, "Post", "title", str_at,
                          (void *)offsetof(post, title), GQL_RESOLVER_SYNC);
  gql_schema_set_resolver(s, "Comment", "id", str_at,
                          (void *)offsetof(comment, id), GQL_RESOLVER_SYNC);
  gql_schema_set_resolver(s, "Comment", "body", str_at,
                          (void *)offsetof(comment, body), GQL_RESOLVER_SYNC);
  data *d = calloc(1, sizeof *d);
  for (int a = 0; a < 5; a++) {
    author *au = &d->authors[a];
    snprintf(au->id, sizeof au->id, "a%d", a);
    snprintf(au->name, sizeof au->name, "Author %d", a);
    for (int p = 0; p < 5; p++) {
      post *po = &au->posts[p];
      snprintf(po->id, sizeof po->id, "p%d%d", a, p);
      snprintf(po->title, sizeof po->title, "Post %d of %d", p, a);
      for (int c = 0; c < 4; c++) {
        snprintf(po->comments[c].id, sizeof po->comments[c].id, "c%d%d%d", a, p,
                 c);
        snprintf(po->comments[c].body, sizeof po->comments[c].body,
                 "Comment %d", c);
      }
    }
  }
  gql_prepared *p;
  if (gql_prepare(s, query, sizeof query - 1, NULL, NULL, &p, NULL))
    return 1;
  size_t sent = 0;
  gql_trace_options def, off, depth2, depth0;
  gql_trace_options_init(&def);
  off = def;
  off.no_collapse = true;
  depth2 = def;
  depth2.depth = 2;
  depth0 = def;
  depth0.depth = 0;
  struct {
    const char *name;
    const gql_trace_options *o;
    int div; /* fewer iterations: the spans of a trial are held queued */
  } cfgs[] = {{"untraced", NULL, 1},
              {"traced_default", &def, 1},
              {"traced_collapse_off", &off, 4},
              {"traced_depth_2", &depth2, 1},
              {"traced_depth_0", &depth0, 1}};
  if (argc > 3 && strncmp(argv[3], "cg:", 3) == 0) {
    /* For callgrind: iters operations of one config after a warm-up, in
     * cg_ops (the request side only: the exporter sleeps through it). */
    size_t i = 0;
    while (i < sizeof cfgs / sizeof cfgs[0] &&
           strcmp(argv[3] + 3, cfgs[i].name) != 0)
      i++;
    if (i == sizeof cfgs / sizeof cfgs[0])
      return 2;
    gql_tracer *tracer;
    gql_tracer_config tc = {.service_name = "bench",
                            .transport = null_transport,
                            .transport_ud = &sent,
                            .queue_spans = (uint32_t)(iters * 600 + 1000),
                            .batch_spans = (uint32_t)(iters * 600 + 1000),
                            .interval_ms = 3600000};
    if (gql_tracer_new(&tc, &tracer))
      return 1;
    run r = {.p = p, .d = d, .tracer = tracer, .o = cfgs[i].o};
    r.arena = gql_arena_new(NULL);
    /* warm-up, not collected: as many operations as measured, so that
     * the exporter's chunk pool holds what the measured ones need */
    for (int w = 0; w < iters + 1; w++)
      one(&r);
    gql_tracer_flush(tracer);
    cg_ops(&r, iters);
    printf("%s: %d operations in cg_ops\n", cfgs[i].name, iters);
    gql_tracer_free(tracer);
    gql_output_free(&r.out);
    gql_arena_free(r.arena);
    gql_prepared_free(p);
    gql_schema_free(s);
    free(d);
    return 0;
  }
  if (argc > 3 && strcmp(argv[3], "enc") == 0) {
    /* The exporter's side alone: per trial, `iters` operations queue
     * their records (not timed), then one flush encodes them in batches
     * of 512 spans on this thread (no exporter thread) for a transport
     * that discards: ns per span and bytes per span, OTLP JSON and
     * protobuf. An optional fifth argument names one configuration. */
    printf("%-22s %-9s %9s %9s %11s\n", "config", "protocol", "spans/op",
           "ns/span", "bytes/span");
    for (size_t i = 1; i < 3; i++) {
      if (argc > 4 && strcmp(argv[4], cfgs[i].name) != 0)
        continue;
      for (int proto = 0; proto < 2; proto++) {
        int n = iters / cfgs[i].div;
        gql_tracer *tracer;
        gql_tracer_config tc = {.service_name = "bench",
                                .transport = null_transport,
                                .transport_ud = &sent,
                                .queue_spans = (uint32_t)(n * 300 + 1000),
                                .batch_spans = 512,
                                .no_thread = true,
                                .protocol = proto ? GQL_OTLP_HTTP_PROTOBUF
                                                  : GQL_OTLP_HTTP_JSON};
        if (gql_tracer_new(&tc, &tracer))
          return 1;
        run r = {.p = p, .d = d, .tracer = tracer, .o = cfgs[i].o};
        r.arena = gql_arena_new(NULL);
        double ns[64];
        int nt = trials < 64 ? trials : 64;
        uint64_t spans = 0, bytes = 0;
        for (int t = -1; t < nt; t++) { /* trial -1: warm-up */
          gql_tracer_stats a, b;
          gql_tracer_stats_get(tracer, &a);
          for (int k = 0; k < n; k++)
            one(&r);
          size_t sent0 = sent;
          uint64_t t0 = bench_now_ns();
          gql_tracer_flush(tracer);
          uint64_t t1 = bench_now_ns();
          gql_tracer_stats_get(tracer, &b);
          if (b.exported - a.exported != b.queued - a.queued || b.dropped)
            return 3;
          if (t < 0)
            continue;
          spans = b.exported - a.exported;
          bytes = sent - sent0;
          ns[t] = (double)(t1 - t0) / (double)spans;
        }
        printf("%-22s %-9s %9.1f %9.1f %11.1f\n", cfgs[i].name,
               proto ? "protobuf" : "json", (double)spans / n, median(ns, nt),
               (double)bytes / spans);
        gql_tracer_free(tracer);
        gql_output_free(&r.out);
        gql_arena_free(r.arena);
      }
    }
    gql_prepared_free(p);
    gql_schema_free(s);
    free(d);
    return 0;
  }
  if (argc > 3 && strncmp(argv[3], "ab:", 3) == 0) {
    /* Untraced and traced alternate in short rounds, so that the load of a
     * shared machine hits both alike: the median of the trials' ratios. */
    const gql_trace_options *o = NULL;
    for (size_t i = 1; i < sizeof cfgs / sizeof cfgs[0]; i++)
      if (strcmp(argv[3] + 3, cfgs[i].name) == 0)
        o = cfgs[i].o;
    if (!o)
      return 2;
    gql_tracer *tracer;
    gql_tracer_config tc = {.service_name = "bench",
                            .transport = null_transport,
                            .transport_ud = &sent,
                            .queue_spans = (uint32_t)(iters * 300 + 1000),
                            .batch_spans = (uint32_t)(iters * 300 + 1000),
                            .interval_ms = 3600000};
    if (gql_tracer_new(&tc, &tracer))
      return 1;
    run ru = {.p = p, .d = d, .tracer = tracer, .o = NULL};
    run rt = {.p = p, .d = d, .tracer = tracer, .o = o};
    ru.arena = gql_arena_new(NULL);
    rt.arena = gql_arena_new(NULL);
    double ratio[64], ut[64], tt[64];
    /* every round's time per operation, for the quantiles below */
    static double ru_t[64 * 40], rt_t[64 * 40];
    int nt = trials < 64 ? trials : 64, nr = 0, per = iters / 40;
    for (int w = 0; w < iters / 4; w++) {
      one(&ru);
      one(&rt);
    }
    gql_tracer_flush(tracer);
    for (int t = 0; t < nt; t++) {
      uint64_t su = 0, st = 0;
      for (int round = 0; round < 40; round++) {
        uint64_t t0 = bench_now_ns();
        for (int k = 0; k < per; k++)
          one(&ru);
        uint64_t t1 = bench_now_ns();
        for (int k = 0; k < per; k++)
          one(&rt);
        uint64_t t2 = bench_now_ns();
        su += t1 - t0;
        st += t2 - t1;
        ru_t[nr] = (double)(t1 - t0) / per;
        rt_t[nr++] = (double)(t2 - t1) / per;
      }
      gql_tracer_flush(tracer);
      ratio[t] = (double)st / (double)su;
      ut[t] = (double)su / (per * 40) / 1000.0;
      tt[t] = (double)st / (per * 40) / 1000.0;
    }
    printf("%s interleaved: untraced %.2f us, traced %.2f us, ratio %.3f "
           "(medians of %d trials)\n",
           argv[3] + 3, median(ut, nt), median(tt, nt), median(ratio, nt), nt);
    /* Rounds a busy machine did not slow: the 10th percentile of each
     * side's round times (preemptions only ever add time). */
    qsort(ru_t, (size_t)nr, sizeof *ru_t, cmp_double);
    qsort(rt_t, (size_t)nr, sizeof *rt_t, cmp_double);
    printf("%s fastest rounds (p10): untraced %.2f us, traced %.2f us, "
           "ratio %.3f (%d rounds)\n",
           argv[3] + 3, ru_t[nr / 10] / 1000.0, rt_t[nr / 10] / 1000.0,
           rt_t[nr / 10] / ru_t[nr / 10], nr);
    gql_tracer_free(tracer);
    gql_output_free(&ru.out);
    gql_output_free(&rt.out);
    gql_arena_free(ru.arena);
    gql_arena_free(rt.arena);
    gql_prepared_free(p);
    gql_schema_free(s);
    free(d);
    return 0;
  }
  double base = 0;
  printf("%-22s %12s %8s %14s\n", "config", "us/op", "ratio", "export_us/op");
  gql_tracer_stats total = {0};
  for (size_t i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++) {
    if (i && argc > 3 && strcmp(argv[3], cfgs[i].name) != 0)
      continue;
    int n = iters / cfgs[i].div;
    /* The exporter sleeps during a trial (long interval, batch = queue) and
     * exports at the flush after it, timed on its own: the request cost
     * and the export cost are reported apart. */
    gql_tracer *tracer;
    gql_tracer_config tc = {.service_name = "bench",
                            .transport = null_transport,
                            .transport_ud = &sent,
                            .queue_spans = (uint32_t)(n * 300 + 1000),
                            .batch_spans = (uint32_t)(n * 300 + 1000),
                            .interval_ms = 3600000};
    if (gql_tracer_new(&tc, &tracer))
      return 1;
    run r = {.p = p, .d = d, .tracer = tracer, .o = cfgs[i].o};
    r.arena = gql_arena_new(NULL);
    double req[64], exp[64];
    int nt = trials < 64 ? trials : 64;
    for (int w = 0; w < n / 4; w++) /* warm-up */
      one(&r);
    gql_tracer_flush(tracer);
    for (int t = 0; t < nt; t++) {
      uint64_t t0 = bench_now_ns();
      for (int k = 0; k < n; k++)
        one(&r);
      uint64_t t1 = bench_now_ns();
      gql_tracer_flush(tracer);
      uint64_t t2 = bench_now_ns();
      req[t] = (double)(t1 - t0) / n;
      exp[t] = (double)(t2 - t1) / n;
    }
    double rq = median(req, nt), ex = median(exp, nt);
    if (!i)
      base = rq;
    printf("%-22s %12.2f %7.2fx %14.2f\n", cfgs[i].name, rq / 1000.0, rq / base,
           ex / 1000.0);
    gql_tracer_stats st;
    gql_tracer_stats_get(tracer, &st);
    total.queued += st.queued;
    total.exported += st.exported;
    total.dropped += st.dropped;
    gql_tracer_free(tracer);
    gql_output_free(&r.out);
    gql_arena_free(r.arena);
  }
  gql_tracer_stats st = total;
  fprintf(stderr, "spans: queued %llu exported %llu dropped %llu\n",
          (unsigned long long)st.queued, (unsigned long long)st.exported,
          (unsigned long long)st.dropped);
  gql_prepared_free(p);
  gql_schema_free(s);
  free(d);
  return 0;
}
