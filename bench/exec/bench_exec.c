/* The execution benchmark, gql's side: the seven operations of
 * ../shared/bench/README.md with C resolvers (prepared and full), with the
 * JSON default resolver, and the hand-written C floor.
 *
 *   bench_exec dump DIR          writes DIR/OP.SYSTEM.json for every system
 *                                and fails when one differs from gql prepared
 *   bench_exec time TRIALS [OP..] prints one line per op (all by default):
 *                                median ns per request of each system (thread
 *                                CPU time; BENCH_CLOCK=wall for wall time),
 *                                then allocator calls per request
 *   bench_exec loop OP MODE N    runs N requests inside bench_exec_loop (for
 *                                valgrind --toggle-collect=bench_exec_loop)
 *
 * Systems (MODE): prepared, full, json (default resolver over a JSON
 * document, prepared), members (the scalar fields as struct members,
 * gql_schema_set_member; prepared), floor. The shared folder is
 * BENCH_SHARED_DIR or the environment variable GQL_SHARED_DIR. */
#include "bench_util.h"
#include "ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { M_PREPARED, M_FULL, M_JSON, M_MEMBERS, M_FLOOR, M_COUNT };
static const char *const mode_names[M_COUNT] = {"prepared", "full", "json",
                                                "members", "floor"};

typedef struct runner {
  const bench_op *op;
  int mode;
  const void *floor_data;
  bench_counter cnt;
  gql_allocator alc;
  gql_prepared *p; /* prepared and json */
  gql_arena *arena;
  gql_output out;
  floor_buf fb;
  const char *json; /* the last response */
  size_t len;
  bool errors;
  int rc;
} runner;

static void on_done(void *ud, const char *json, size_t len, bool errors) {
  runner *r = ud;
  r->json = json;
  r->len = len;
  r->errors = errors;
}

static void fail(const runner *r, const char *what) {
  fprintf(stderr, "bench_exec: %s %s: %s\n", r->op->name, mode_names[r->mode],
          what);
  exit(1);
}

static void run_once(void *arg) {
  runner *r = arg;
  if (r->mode == M_FLOOR) {
    r->op->floor(&r->fb, r->floor_data);
    r->json = r->fb.data;
    r->len = r->fb.len;
    return;
  }
  gql_arena_reset(r->arena);
  gql_execute_params params = {
      .arena = r->arena, .output = &r->out, .on_done = on_done, .ud = r};
  if (r->mode == M_JSON)
    params.root_value = r->op->json_root;
  if (r->mode == M_FULL) {
    /* validation and planning work in the request arena, as a server
     * reusing per-thread memory would let them */
    gql_prepare_options o = {.alc = &r->alc, .scratch = r->arena};
    gql_prepared *p;
    r->rc = gql_prepare(r->op->schema, r->op->query, r->op->query_len, NULL, &o,
                        &p, NULL);
    if (r->rc < 0)
      return;
    r->rc = gql_execute(p, &params);
    gql_prepared_free(p);
    return;
  }
  r->rc = gql_execute(r->p, &params);
}

static bool has_mode(const bench_op *op, int mode) {
  return mode == M_JSON      ? op->json_schema != NULL
         : mode == M_MEMBERS ? op->member_schema != NULL
         : mode == M_FLOOR   ? op->floor != NULL
                             : true;
}

static void runner_init(runner *r, const bench_op *op, int mode,
                        const void *floor_data) {
  *r = (runner){.op = op, .mode = mode, .floor_data = floor_data};
  r->alc = bench_counting_allocator(&r->cnt);
  gql_buf_init(&r->fb, NULL);
  if (mode == M_FLOOR)
    return;
  r->out.alc = &r->alc;
  if (!(r->arena = gql_arena_new(&r->alc)))
    fail(r, "out of memory");
  if (mode == M_PREPARED || mode == M_JSON || mode == M_MEMBERS) {
    gql_prepare_options o = {.alc = &r->alc};
    gql_schema *s = mode == M_JSON      ? op->json_schema
                    : mode == M_MEMBERS ? op->member_schema
                                        : op->schema;
    if (gql_prepare(s, op->query, op->query_len, NULL, &o, &r->p, NULL) < 0)
      fail(r, "gql_prepare failed");
  }
}

static void runner_check(runner *r) {
  run_once(r);
  if (r->rc != 0)
    fail(r, gql_strerror(r->rc));
  if (!r->json || r->errors) {
    fprintf(stderr, "%.*s\n", (int)(r->len > 2000 ? 2000 : r->len), r->json);
    fail(r, "the response has errors");
  }
}

static void runner_free(runner *r) {
  gql_prepared_free(r->p);
  gql_arena_free(r->arena);
  gql_output_free(&r->out);
  gql_buf_free(&r->fb);
}

/* Separate and never inlined, so that callgrind can collect only here. */
__attribute__((noinline)) void bench_exec_loop(runner *r, long n);
__attribute__((noinline)) void bench_exec_loop(runner *r, long n) {
  for (long i = 0; i < n; i++)
    run_once(r);
}

static const char *shared_dir(void) {
  const char *env = getenv("GQL_SHARED_DIR");
  return env && *env ? env : BENCH_SHARED_DIR;
}

static int cmd_dump(const char *dir) {
  bench_ops *ops = bench_ops_new(shared_dir());
  int bad = 0;
  for (int i = 0; i < OP_COUNT; i++) {
    const bench_op *op = bench_ops_get(ops, i);
    runner ref;
    runner_init(&ref, op, M_PREPARED, bench_ops_floor_data(ops));
    runner_check(&ref);
    for (int m = 0; m < M_COUNT; m++) {
      if (!has_mode(op, m))
        continue;
      runner r;
      runner_init(&r, op, m, bench_ops_floor_data(ops));
      runner_check(&r);
      run_once(&r); /* twice: reused buffers give the same bytes */
      char path[4096];
      snprintf(path, sizeof path, "%s/%s.gql-%s.json", dir, op->name,
               mode_names[m]);
      FILE *f = fopen(path, "wb");
      if (!f || fwrite(r.json, 1, r.len, f) != r.len || fclose(f)) {
        fprintf(stderr, "bench_exec: cannot write %s\n", path);
        return 2;
      }
      if (r.len != ref.len || memcmp(r.json, ref.json, r.len) != 0) {
        fprintf(stderr, "MISMATCH %s: gql %s differs from gql prepared\n",
                op->name, mode_names[m]);
        bad = 1;
      }
      runner_free(&r);
    }
    runner_free(&ref);
  }
  bench_ops_free(ops);
  return bad;
}

/* Iterations per trial so that a trial lasts about `ms` milliseconds. */
static int calibrate(runner *r, double ms) {
  uint64_t t0 = bench_now_ns();
  int n = 0;
  do {
    run_once(r);
    n++;
  } while (bench_now_ns() - t0 < 2000000u);
  double per = (double)(bench_now_ns() - t0) / n;
  double iters = ms * 1e6 / per;
  return iters < 1 ? 1 : iters > 1e7 ? 10000000 : (int)iters;
}

/* Trials are timed in thread CPU time: on a shared machine the time this
 * thread waits for a core is the scheduler's, not the engine's.
 * BENCH_CLOCK=wall times them by the monotonic clock instead. */
static int cmd_time(int trials, char **only, int nonly) {
  const char *ms_env = getenv("BENCH_TRIAL_MS");
  double ms = ms_env ? atof(ms_env) : 20;
  const char *clock_env = getenv("BENCH_CLOCK");
  bool wall = clock_env && strcmp(clock_env, "wall") == 0;
  bench_ops *ops = bench_ops_new(shared_dir());
  printf("op\tprepared_ns\tfull_ns\tjson_ns\tmembers_ns\tfloor_ns\t"
         "allocs_prepared\tallocs_full\tallocs_json\tallocs_members\tbytes\n");
  for (int i = 0; i < OP_COUNT; i++) {
    const bench_op *op = bench_ops_get(ops, i);
    bool wanted = nonly == 0;
    for (int k = 0; k < nonly; k++)
      wanted |= strcmp(only[k], op->name) == 0;
    if (!wanted)
      continue;
    /* The systems take turns, one trial each, so that a burst of load on
     * a shared machine hits them alike; the median of each is reported. */
    runner r[M_COUNT];
    int iters[M_COUNT];
    double ns[M_COUNT], allocs[M_COUNT], *t[M_COUNT];
    size_t bytes = 0;
    for (int m = 0; m < M_COUNT; m++) {
      ns[m] = allocs[m] = -1;
      t[m] = NULL;
      if (!has_mode(op, m))
        continue;
      runner_init(&r[m], op, m, bench_ops_floor_data(ops));
      runner_check(&r[m]);
      bytes = r[m].len;
      iters[m] = calibrate(&r[m], ms);
      bench_exec_loop(&r[m], iters[m]); /* warm-up */
      if (!(t[m] = malloc(sizeof *t[m] * (size_t)trials)))
        return 2;
    }
    for (int k = 0; k < trials; k++)
      for (int m = 0; m < M_COUNT; m++) {
        if (!t[m])
          continue;
        uint64_t start = bench_trial_clock_ns(wall);
        bench_exec_loop(&r[m], iters[m]);
        t[m][k] = (double)(bench_trial_clock_ns(wall) - start) / iters[m];
      }
    for (int m = 0; m < M_COUNT; m++) {
      if (!t[m])
        continue;
      ns[m] = bench_median(t[m], trials);
      free(t[m]);
      /* Steady state: the arena and the output keep their memory. */
      uint64_t before = r[m].cnt.calls;
      bench_exec_loop(&r[m], 100);
      allocs[m] = (double)(r[m].cnt.calls - before) / 100;
      runner_free(&r[m]);
    }
    printf("%s", op->name);
    for (int m = 0; m < M_COUNT; m++)
      printf(ns[m] < 0 ? "\t-" : "\t%.1f", ns[m]);
    for (int m = 0; m < M_FLOOR; m++)
      printf(allocs[m] < 0 ? "\t-" : "\t%.2f", allocs[m]);
    printf("\t%zu\n", bytes);
    fflush(stdout);
  }
  bench_ops_free(ops);
  return 0;
}

static int cmd_loop(const char *name, const char *mode, long n) {
  int i = bench_op_by_name(name), m = -1;
  for (int k = 0; k < M_COUNT; k++)
    if (strcmp(mode_names[k], mode) == 0)
      m = k;
  if (i < 0 || m < 0) {
    fprintf(stderr, "bench_exec: unknown op or mode\n");
    return 2;
  }
  bench_ops *ops = bench_ops_new(shared_dir());
  const bench_op *op = bench_ops_get(ops, i);
  if (!has_mode(op, m)) {
    fprintf(stderr, "bench_exec: %s has no %s mode\n", name, mode);
    return 2;
  }
  runner r;
  runner_init(&r, op, m, bench_ops_floor_data(ops));
  runner_check(&r); /* warm: buffers at their steady size */
  uint64_t before = r.cnt.calls;
  bench_exec_loop(&r, n);
  printf("%s %s: %ld requests, %.2f allocator calls per request\n", name, mode,
         n, (double)(r.cnt.calls - before) / (double)n);
  runner_free(&r);
  bench_ops_free(ops);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "dump") == 0)
    return cmd_dump(argv[2]);
  if (argc >= 3 && strcmp(argv[1], "time") == 0 && atoi(argv[2]) > 0)
    return cmd_time(atoi(argv[2]), argv + 3, argc - 3);
  if (argc == 5 && strcmp(argv[1], "loop") == 0)
    return cmd_loop(argv[2], argv[3], atol(argv[4]));
  fprintf(stderr, "usage: bench_exec dump DIR | time TRIALS [OP...] | "
                  "loop OP MODE N\n");
  return 2;
}
