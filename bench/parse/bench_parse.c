/* Parse throughput: gql_parse on the given documents, reusing one arena
 * (reset between parses, as a server reuses a request arena). Prints one
 * line per document: bytes, median µs per parse, MB/s, arena bytes per
 * source byte, and allocator calls per parse in the steady state.
 *
 *   bench_parse --generate FILE BYTES   writes the generated document
 *   bench_parse NAME=FILE...            measures */
#include "bench_util.h"
#include "core/core.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct job {
  gql_arena *arena;
  const char *src;
  size_t len;
  int failed;
} job;

static void parse_once(void *arg) {
  job *j = arg;
  gql_arena_reset(j->arena);
  gql_document *doc;
  gql_parse_options opt = {.max_tokens = UINT32_MAX, .max_size = SIZE_MAX};
  if (gql_parse(j->arena, j->src, j->len, &opt, &doc, NULL))
    j->failed = 1;
}

/* A deterministic document mixing what real traffic and schemas hold:
 * operations with variables, aliases, arguments of every literal kind,
 * fragments, and type definitions with descriptions. */
static void generate(FILE *f, size_t target) {
  size_t n = 0;
  for (unsigned i = 0; n < target; i++) {
    int w;
    if (i % 4 == 3) {
      w = fprintf(f,
                  "\"\"\"\nType number %u, with a description\nthat spans "
                  "lines.\n\"\"\"\ntype T%u implements Node & Entity "
                  "@key(fields: \"id\") {\n  id: ID!\n  \"field\" name(arg: "
                  "String = \"x\", n: [Int!]! = [1, 2]): String @deprecated\n "
                  " items(first: Int = 10, after: String): [Item!]!\n}\n\n",
                  i, i);
    } else if (i % 4 == 2) {
      w = fprintf(f,
                  "fragment F%u on User @dir(a: 1) {\n  id\n  name\n  friends"
                  "(first: 5) { edges { node { id ...G%u } } }\n}\n\n",
                  i, i + 1);
    } else {
      w = fprintf(
          f,
          "query Q%u($id: ID!, $n: Int = 10, $f: Filter = {a: [1, 2.5, "
          "\"s\"], b: {c: true, d: null}, e: ENUM_VALUE}) @live {\n"
          "  user(id: $id) {\n    id\n    alias%u: name\n    posts(first: "
          "$n, filter: $f, order: {by: DATE, dir: DESC}) {\n      "
          "edges {\n        node {\n          id\n          title\n          "
          "... on Post @include(if: true) { body score(scale: 1.5e3) }\n"
          "          ...F%u\n        }\n      }\n    }\n  }\n}\n\n",
          i, i, i);
    }
    if (w < 0)
      exit(2);
    n += (size_t)w;
  }
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "--generate") == 0) {
    FILE *f = fopen(argv[2], "w");
    if (!f)
      return 2;
    generate(f, (size_t)strtoull(argv[3], NULL, 10));
    return fclose(f) ? 2 : 0;
  }
  if (argc < 2) {
    fprintf(stderr,
            "usage: bench_parse NAME=FILE... | --generate FILE BYTES\n");
    return 2;
  }
  printf("%-16s %10s %12s %10s %14s %12s\n", "document", "bytes", "us/parse",
         "MB/s", "arena B/byte", "allocs/parse");
  for (int i = 1; i < argc; i++) {
    char *eq = strchr(argv[i], '=');
    if (!eq)
      return 2;
    *eq = 0;
    job j = {0};
    j.src = bench_read_file(eq + 1, &j.len);
    bench_counter cnt = {0};
    gql_allocator alc = bench_counting_allocator(&cnt);
    j.arena = gql_arena_new(&alc);
    parse_once(&j);
    if (j.failed) {
      fprintf(stderr, "bench_parse: %s does not parse\n", argv[i]);
      return 1;
    }
    size_t arena_bytes = gql_arena_used(j.arena);
    int iters = bench_iters_for(parse_once, &j, 200000000u); /* 0.2 s a trial */
    uint64_t calls_before = cnt.calls;
    double ns = bench_median_ns(parse_once, &j, iters, 7);
    double per_parse = (double)(cnt.calls - calls_before) / ((double)iters * 8);
    printf("%-16s %10zu %12.2f %10.1f %14.2f %12.3f\n", argv[i], j.len,
           ns / 1000.0, (double)j.len / ns * 1000.0,
           (double)arena_bytes / (double)j.len, per_parse);
    gql_arena_free(j.arena);
    free((void *)j.src);
  }
  return 0;
}
