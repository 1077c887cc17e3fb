/*
 * gql's side of the planning benchmark, without the network: loads a
 * supergraph (timed, RSS after), then plans each query file REPS times
 * (parse + plan into a reset arena, timed one by one) and prints per query
 * its subgraph requests and median time, and the p50 / p99 over all plans.
 * With --stream N it then sends N distinct operations (the queries with a
 * numbered alias on their first field) through a plan cache of
 * --cache-bytes and prints the process's RSS along the way.
 *
 * Output, one record a line (run.py reads it):
 *   load_ms MS / load_cpu_ms MS / rss_load_kb KB / types N graphs N
 *   query FILE fetches N median_us US max_us US arena_kb KB
 *     (arena_kb: the memory one planning took; or: query FILE error MSG)
 *   plan_us p50 US p99 US max US samples N         (thread CPU time)
 *   plan_wall_us p50 US p99 US max US
 *   stream N rss_kb KB cached N cache_bytes B evictions N
 *
 * Usage: bench_plan SUPERGRAPH [--reps N] [--stream N] [--cache-bytes B]
 *                   [--print-plans FILE] QUERY_FILE...
 * (--print-plans: each query's plan as text appended to FILE)
 */
#include "bench_util.h"
#include "gateway/gateway.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* The thread's CPU time: a plan's cost without the preemptions of a
 * shared machine (wall time is printed beside it). */
static uint64_t cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static long rss_kb(const char *field) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kb = -1;
  size_t n = strlen(field);
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, field, n) == 0)
      kb = atol(line + n + 1);
  if (f)
    fclose(f);
  return kb;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static uint64_t pct(const uint64_t *sorted, size_t n, double p) {
  size_t i = (size_t)(p * (double)(n - 1) + 0.5);
  return sorted[i < n ? i : n - 1];
}

/* Parses and plans `text`; returns the plan or NULL with *err. */
static const gql_gw_plan *plan_once(const gql_supergraph *sg, gql_arena *arena,
                                    const char *text, size_t len,
                                    const char **err) {
  gql_document *doc;
  gql_syntax_error se;
  if (gql_parse_syntax(arena, text, len, NULL, &doc, &se)) {
    *err = se.message;
    return NULL;
  }
  gql_gw_plan *plan = NULL;
  int rc = gql_gw_plan_build(sg, doc, NULL, arena, &plan, err);
  if (rc && !*err)
    *err = gql_strerror(rc);
  return rc ? NULL : plan;
}

/* The query with "aN: " before its first field: a distinct text (and
 * response key) with the same plan shape. */
static size_t numbered(const char *q, size_t len, unsigned long n, char *out,
                       size_t cap) {
  const char *brace = memchr(q, '{', len);
  if (!brace)
    return 0;
  size_t head = (size_t)(brace - q) + 1;
  int w = snprintf(out, cap, "%.*s a%lu: ", (int)head, q, n);
  if (w < 0 || (size_t)w + (len - head) + 1 > cap)
    return 0;
  memcpy(out + w, q + head, len - head);
  out[w + len - head] = 0;
  return (size_t)w + len - head;
}

/* Appends the query's plan as text to `path` (comparing plans before and
 * after a planner change). */
static void print_plan(const char *path, const char *file,
                       const gql_gw_plan *plan) {
  FILE *f = fopen(path, "a");
  if (!f)
    return;
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_gw_plan_print(plan, &b);
  fprintf(f, "== %s\n%.*s\n", file, (int)b.len, b.data ? b.data : "");
  gql_buf_free(&b);
  fclose(f);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: bench_plan SUPERGRAPH [--reps N] [--stream N] "
                    "[--cache-bytes B] [--print-plans FILE] QUERY_FILE...\n");
    return 2;
  }
  int reps = 30;
  unsigned long stream = 0;
  size_t cache_bytes = 0;
  const char *plans_path = NULL;
  const char **files = calloc((size_t)argc, sizeof *files);
  int nfiles = 0;
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (strcmp(argv[i], "--stream") == 0 && i + 1 < argc)
      stream = strtoul(argv[++i], NULL, 10);
    else if (strcmp(argv[i], "--cache-bytes") == 0 && i + 1 < argc)
      cache_bytes = strtoull(argv[++i], NULL, 10);
    else if (strcmp(argv[i], "--print-plans") == 0 && i + 1 < argc)
      plans_path = argv[++i];
    else
      files[nfiles++] = argv[i];
  }
  if (reps < 1)
    reps = 1;

  size_t sdl_len;
  char *sdl = bench_read_file(argv[1], &sdl_len);
  uint64_t t0 = bench_now_ns(), c0 = cpu_ns();
  gql_supergraph *sg = NULL;
  const char *err = NULL;
  gql_arena *err_arena = gql_arena_new(NULL);
  int rc = gql_supergraph_load(sdl, sdl_len, &sg, err_arena, &err);
  uint64_t t1 = bench_now_ns(), c1 = cpu_ns();
  if (rc) {
    fprintf(stderr, "bench_plan: %s: %s\n", argv[1], err ? err : "?");
    return 1;
  }
  free(sdl); /* the supergraph keeps its own copy */
  printf("load_ms %.1f\n", (double)(t1 - t0) / 1e6);
  printf("load_cpu_ms %.1f\n", (double)(c1 - c0) / 1e6);
  printf("rss_load_kb %ld\n", rss_kb("VmRSS:"));
  printf("types %u graphs %u\n", sg->ntypes, sg->ngraphs);
  fflush(stdout);

  char **texts = calloc((size_t)nfiles + 1, sizeof *texts);
  size_t *lens = calloc((size_t)nfiles + 1, sizeof *lens);
  uint64_t *all = calloc((size_t)nfiles * (size_t)reps + 1, sizeof *all);
  uint64_t *mine = calloc((size_t)reps, sizeof *mine);
  uint64_t *wall = calloc((size_t)nfiles * (size_t)reps + 1, sizeof *wall);
  uint64_t *wmine = calloc((size_t)reps, sizeof *wmine);
  size_t nall = 0;
  gql_arena *arena = gql_arena_new(NULL);
  for (int q = 0; q < nfiles; q++) {
    texts[q] = bench_read_file(files[q], &lens[q]);
    uint32_t fetches = 0;
    size_t arena_bytes = 0;
    err = NULL;
    for (int r = 0; r < reps; r++) {
      gql_arena_reset(arena);
      uint64_t ws = bench_now_ns(), s = cpu_ns();
      const gql_gw_plan *plan = plan_once(sg, arena, texts[q], lens[q], &err);
      uint64_t e = cpu_ns(), we = bench_now_ns();
      if (!plan)
        break;
      fetches = plan->nbatches;
      if (r == 0 && plans_path)
        print_plan(plans_path, files[q], plan);
      arena_bytes = gql_arena_reserved(arena);
      mine[r] = e - s;
      wmine[r] = we - ws;
    }
    if (err) {
      printf("query %s error %s\n", files[q], err);
      continue;
    }
    for (int r = 0; r < reps; r++) {
      wall[nall] = wmine[r];
      all[nall++] = mine[r];
    }
    qsort(mine, (size_t)reps, sizeof *mine, cmp_u64);
    printf("query %s fetches %u median_us %.1f max_us %.1f arena_kb %zu\n",
           files[q], fetches, (double)pct(mine, (size_t)reps, 0.5) / 1e3,
           (double)mine[reps - 1] / 1e3, arena_bytes >> 10);
  }
  if (nall) {
    qsort(all, nall, sizeof *all, cmp_u64);
    printf("plan_us p50 %.1f p99 %.1f max %.1f samples %zu\n",
           (double)pct(all, nall, 0.5) / 1e3,
           (double)pct(all, nall, 0.99) / 1e3, (double)all[nall - 1] / 1e3,
           nall);
    qsort(wall, nall, sizeof *wall, cmp_u64);
    printf("plan_wall_us p50 %.1f p99 %.1f max %.1f\n",
           (double)pct(wall, nall, 0.5) / 1e3,
           (double)pct(wall, nall, 0.99) / 1e3, (double)wall[nall - 1] / 1e3);
  }
  printf("rss_planned_kb %ld\n", rss_kb("VmRSS:"));
  fflush(stdout);

  if (stream && nfiles) {
    gql_gw_plan_cache *c = gql_gw_plan_cache_new(sg, cache_bytes);
    size_t cap = 1 << 16;
    char *buf = malloc(cap);
    unsigned long every = stream / 20 ? stream / 20 : 1;
    for (unsigned long n = 0; n < stream; n++) {
      int q = (int)(n % (unsigned long)nfiles);
      size_t len = numbered(texts[q], lens[q], n, buf, cap);
      const gql_gw_plan *plan;
      gql_gw_plan_ref *ref;
      if (len &&
          gql_gw_plan_cache_get(c, buf, len, NULL, &plan, &ref, NULL) == 0)
        gql_gw_plan_cache_release(ref);
      if ((n + 1) % every == 0 || n + 1 == stream) {
        gql_gw_plan_cache_info i;
        gql_gw_plan_cache_stats(c, &i);
        printf("stream %lu rss_kb %ld cached %zu cache_bytes %zu "
               "evictions %llu\n",
               n + 1, rss_kb("VmRSS:"), i.plans, i.bytes,
               (unsigned long long)i.evictions);
        fflush(stdout);
      }
    }
    free(buf);
    gql_gw_plan_cache_free(c);
  }
  printf("rss_hwm_kb %ld\n", rss_kb("VmHWM:"));
  for (int q = 0; q < nfiles; q++)
    free(texts[q]);
  free(texts);
  free(lens);
  free(all);
  free(mine);
  free(wall);
  free(wmine);
  free(files);
  gql_arena_free(arena);
  gql_arena_free(err_arena);
  gql_supergraph_free(sg);
  return 0;
}
