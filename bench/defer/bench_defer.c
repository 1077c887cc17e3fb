/* The incremental-delivery benchmark, gql's side: the seven operations of
 * ../shared/bench/README.md with a @defer wrapped around their deepest
 * selection, against the same operations without it, on the same schemas
 * (every one with graphql-js 17's @defer and @stream).
 *
 *   bench_defer texts DIR          writes DIR/OP.plain.graphql and
 *                                  DIR/OP.defer.graphql (for peers17.js)
 *   bench_defer dump DIR           writes DIR/OP.gql-plain.json and
 *                                  DIR/OP.gql-defer.jsonl (a payload a line),
 *                                  and the C floor's OP.floor-plain.json and
 *                                  OP.floor-defer.jsonl; fails when a floor's
 *                                  bytes differ from gql's
 *   bench_defer time TRIALS [OP..] one line per op: median ns per request of
 *                                  plain and defer (all payloads), payloads,
 *                                  floor-plain and floor-defer ("-": none)
 *   bench_defer loop OP MODE N     N requests inside bench_defer_loop (for
 *                                  valgrind --toggle-collect=bench_defer_loop)
 *
 * MODE: plain (gql_execute of the operation as written), defer
 * (gql_execute_incremental of the deferred text; every payload is written),
 * floor-plain and floor-defer (floor.c: the same bytes written by straight
 * C, no GraphQL; minimal, flat_list, nested_lists and star_wars). The
 * operations are prepared once, as bench/exec's "gql prepared". */
#include "bench_util.h"
#include "deferred.h"
#include "floor.h"
#include "ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { M_PLAIN, M_DEFER, M_FLOOR_PLAIN, M_FLOOR_DEFER, M_COUNT };
static const char *const mode_names[M_COUNT] = {"plain", "defer", "floor-plain",
                                                "floor-defer"};

static void die(const char *what, const char *detail) {
  fprintf(stderr, "bench_defer: %s%s%s\n", what, detail ? ": " : "",
          detail ? detail : "");
  exit(2);
}

typedef struct runner {
  const bench_op *op;
  int mode;
  char *text; /* the operation run (defer: the deferred text) */
  size_t text_len;
  gql_prepared *p;
  gql_arena *arena;
  gql_output out;
  defer_floor floor; /* the floor modes */
  const void *floor_data;
  floor_buf fb;
  FILE *dump;       /* dump: each payload a line */
  gql_buf *capture; /* dump: the same lines, for the comparison */
  unsigned npay;    /* payloads of the last request */
  size_t bytes;     /* their bytes */
  bool errors;      /* a payload with errors */
  int rc;
} runner;

static void on_payload(void *ud, const char *json, size_t len, bool errors) {
  runner *r = ud;
  r->npay++;
  r->bytes += len;
  r->errors |= errors;
  if (r->dump)
    fprintf(r->dump, "%.*s\n", (int)len, json);
  if (r->capture) {
    gql_buf_append(r->capture, json, len);
    gql_buf_append(r->capture, "\n", 1);
  }
}

static void run_once(void *arg) {
  runner *r = arg;
  r->npay = 0, r->bytes = 0, r->errors = false;
  if (r->mode == M_FLOOR_PLAIN) { /* handed on as gql_execute does */
    bench_defer_floor_plain(&r->floor, &r->fb, r->floor_data, on_payload, r);
    r->rc = r->fb.failed ? GQL_ENOMEM : 0;
    return;
  }
  if (r->mode == M_FLOOR_DEFER) {
    r->floor.defer(&r->fb, r->floor_data, on_payload, r);
    r->rc = r->fb.failed ? GQL_ENOMEM : 0;
    return;
  }
  gql_arena_reset(r->arena);
  gql_execute_params params = {
      .arena = r->arena, .output = &r->out, .on_done = on_payload, .ud = r};
  r->rc = r->mode == M_DEFER ? gql_execute_incremental(r->p, &params)
                             : gql_execute(r->p, &params);
}

/* Whether `mode` runs for op `i` (the floors exist for four ops). */
static bool mode_runs(const bench_ops *ops, int i, int mode) {
  defer_floor f = bench_defer_floor(ops, i);
  return mode == M_FLOOR_PLAIN   ? f.plain != NULL
         : mode == M_FLOOR_DEFER ? f.defer != NULL
                                 : true;
}

static void runner_init(runner *r, const bench_ops *ops, int op_index,
                        int mode) {
  const bench_op *op = bench_ops_get(ops, op_index);
  *r = (runner){.op = op, .mode = mode};
  if (mode == M_FLOOR_PLAIN || mode == M_FLOOR_DEFER) {
    if (!mode_runs(ops, op_index, mode))
      die("no floor for", op->name);
    r->floor = bench_defer_floor(ops, op_index);
    r->floor_data = bench_ops_floor_data(ops);
    gql_buf_init(&r->fb, NULL);
    return;
  }
  if (mode == M_DEFER)
    if (!(r->text = bench_defer_text(op, op_index, &r->text_len)))
      die("no deferred text for", op->name);
  const char *text = r->text ? r->text : op->query;
  size_t len = r->text ? r->text_len : op->query_len;
  if (!(r->arena = gql_arena_new(NULL)))
    die("out of memory", NULL);
  gql_errors errs = {0};
  if (gql_prepare(op->schema, text, len, NULL, NULL, &r->p, &errs) < 0)
    die("gql_prepare failed", op->name);
}

static void runner_check(runner *r) {
  run_once(r);
  /* 0: every payload was delivered and nothing pends */
  if (r->rc != 0 || r->errors)
    die(r->rc < 0 ? gql_strerror(r->rc) : "pending work or errors",
        r->op->name);
  if ((r->mode == M_DEFER || r->mode == M_FLOOR_DEFER) && r->npay < 2)
    die("the deferred operation sent one payload", r->op->name);
}

static void runner_free(runner *r) {
  gql_prepared_free(r->p);
  gql_arena_free(r->arena);
  gql_output_free(&r->out);
  gql_buf_free(&r->fb);
  free(r->text);
}

/* Separate and never inlined, so that callgrind can collect only here. */
__attribute__((noinline)) void bench_defer_loop(runner *r, long n);
__attribute__((noinline)) void bench_defer_loop(runner *r, long n) {
  for (long i = 0; i < n; i++)
    run_once(r);
}

static const char *shared_dir(void) {
  const char *env = getenv("GQL_SHARED_DIR");
  return env && *env ? env : BENCH_SHARED_DIR;
}

static void write_file(const char *dir, const char *name, const char *ext,
                       const char *text, size_t len) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.%s", dir, name, ext);
  FILE *f = fopen(path, "w");
  if (!f || fwrite(text, 1, len, f) != len || fclose(f) != 0)
    die("cannot write", path);
}

static int cmd_texts(const bench_ops *ops, const char *dir) {
  for (int i = 0; i < OP_COUNT; i++) {
    const bench_op *op = bench_ops_get(ops, i);
    size_t n;
    char *t = bench_defer_text(op, i, &n);
    if (!t)
      die("no deferred text for", op->name);
    write_file(dir, op->name, "plain.graphql", op->query, op->query_len);
    write_file(dir, op->name, "defer.graphql", t, n);
    free(t);
  }
  return 0;
}

/* The first difference between a floor's payloads and gql's (each a
 * line): stops the run. */
static void compare(const char *name, int mode, const gql_buf *floor,
                    const gql_buf *gql) {
  size_t n = floor->len < gql->len ? floor->len : gql->len, at = 0;
  while (at < n && floor->data[at] == gql->data[at])
    at++;
  if (at == n && floor->len == gql->len)
    return;
  unsigned line = 1;
  for (size_t k = 0; k < at; k++)
    line += gql->data[k] == '\n';
  size_t from = at > 30 ? at - 30 : 0;
  fprintf(stderr,
          "bench_defer: %s %s differs from gql's payloads at byte %zu "
          "(payload %u; %zu bytes against %zu)\n  floor: ...%.*s\n  gql:   "
          "...%.*s\n",
          name, mode_names[mode], at, line, floor->len, gql->len,
          (int)((floor->len - from) < 70 ? floor->len - from : 70),
          floor->data + from,
          (int)((gql->len - from) < 70 ? gql->len - from : 70),
          gql->data + from);
  exit(1);
}

static int cmd_dump(const bench_ops *ops, const char *dir) {
  for (int i = 0; i < OP_COUNT; i++) {
    const bench_op *op = bench_ops_get(ops, i);
    gql_buf got[M_COUNT];
    for (int m = 0; m < M_COUNT; m++) {
      gql_buf_init(&got[m], NULL);
      if (!mode_runs(ops, i, m))
        continue;
      runner r;
      runner_init(&r, ops, i, m);
      char path[4096];
      snprintf(path, sizeof path, "%s/%s.%s%s.%s", dir, op->name,
               m < M_FLOOR_PLAIN ? "gql-" : "", mode_names[m],
               m == M_PLAIN || m == M_FLOOR_PLAIN ? "json" : "jsonl");
      run_once(&r); /* then the buffers' second use, as in the loop */
      if (!(r.dump = fopen(path, "w")))
        die("cannot write", path);
      r.capture = &got[m];
      runner_check(&r);
      fclose(r.dump);
      runner_free(&r);
    }
    /* the floor writes gql's bytes, or its figures mean nothing */
    if (mode_runs(ops, i, M_FLOOR_PLAIN))
      compare(op->name, M_FLOOR_PLAIN, &got[M_FLOOR_PLAIN], &got[M_PLAIN]);
    if (mode_runs(ops, i, M_FLOOR_DEFER))
      compare(op->name, M_FLOOR_DEFER, &got[M_FLOOR_DEFER], &got[M_DEFER]);
    for (int m = 0; m < M_COUNT; m++)
      gql_buf_free(&got[m]);
  }
  return 0;
}

static int cmd_time(const bench_ops *ops, int trials, char **only, int nonly) {
  const char *clock_env = getenv("BENCH_CLOCK");
  bool wall = clock_env && strcmp(clock_env, "wall") == 0;
  printf("op\tplain_ns\tdefer_ns\tpayloads\tfloor_plain_ns\tfloor_defer_ns\n");
  for (int i = 0; i < OP_COUNT; i++) {
    const bench_op *op = bench_ops_get(ops, i);
    bool wanted = nonly == 0;
    for (int k = 0; k < nonly; k++)
      wanted |= strcmp(only[k], op->name) == 0;
    if (!wanted)
      continue;
    runner r[M_COUNT];
    int iters[M_COUNT];
    double t[M_COUNT][64];
    bool runs[M_COUNT];
    for (int m = 0; m < M_COUNT; m++) {
      if (!(runs[m] = mode_runs(ops, i, m)))
        continue;
      runner_init(&r[m], ops, i, m);
      runner_check(&r[m]);
      iters[m] = bench_iters_for(run_once, &r[m], 20 * 1000 * 1000);
      bench_defer_loop(&r[m], iters[m]); /* warm-up */
    }
    /* they take turns, a trial each, so that load hits all alike; CPU
     * time, as the peer's (BENCH_CLOCK=wall: the wall clock) */
    int n = trials < 64 ? trials : 64;
    for (int k = 0; k < n; k++)
      for (int m = 0; m < M_COUNT; m++) {
        if (!runs[m])
          continue;
        uint64_t start = bench_trial_clock_ns(wall);
        bench_defer_loop(&r[m], iters[m]);
        t[m][k] = (double)(bench_trial_clock_ns(wall) - start) / iters[m];
      }
    printf("%s\t%.1f\t%.1f\t%u", op->name, bench_median(t[M_PLAIN], n),
           bench_median(t[M_DEFER], n), r[M_DEFER].npay);
    for (int m = M_FLOOR_PLAIN; m < M_COUNT; m++)
      if (runs[m])
        printf("\t%.1f", bench_median(t[m], n));
      else
        printf("\t-");
    printf("\n");
    for (int m = 0; m < M_COUNT; m++)
      if (runs[m])
        runner_free(&r[m]);
  }
  return 0;
}

static int cmd_loop(const bench_ops *ops, const char *name, const char *mode,
                    long n) {
  int i = bench_op_by_name(name), m = -1;
  for (int k = 0; k < M_COUNT; k++)
    if (strcmp(mode, mode_names[k]) == 0)
      m = k;
  if (i < 0 || m < 0 || n < 1)
    die("unknown op or mode", name);
  runner r;
  runner_init(&r, ops, i, m);
  runner_check(&r);
  bench_defer_loop(&r, n);
  /* what a request used (stderr: callgrind's runs discard it) */
  fprintf(stderr, "%s %s: %u payloads, %zu bytes", name, mode, r.npay, r.bytes);
  if (r.arena)
    fprintf(stderr, ", arena %zu used, %zu reserved", gql_arena_used(r.arena),
            gql_arena_reserved(r.arena));
  fprintf(stderr, "\n");
  runner_free(&r);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: bench_defer texts DIR | dump DIR | time TRIALS "
                    "[OP...] | loop OP MODE N\n");
    return 2;
  }
  bench_ops *ops = bench_ops_new_with(shared_dir(), true);
  int rc = 2;
  if (strcmp(argv[1], "texts") == 0)
    rc = cmd_texts(ops, argv[2]);
  else if (strcmp(argv[1], "dump") == 0)
    rc = cmd_dump(ops, argv[2]);
  else if (strcmp(argv[1], "time") == 0 && atoi(argv[2]) > 0)
    rc = cmd_time(ops, atoi(argv[2]), argv + 3, argc - 3);
  else if (strcmp(argv[1], "loop") == 0 && argc == 5)
    rc = cmd_loop(ops, argv[2], argv[3], atol(argv[4]));
  else
    fprintf(stderr, "bench_defer: unknown command %s\n", argv[1]);
  bench_ops_free(ops);
  return rc;
}
