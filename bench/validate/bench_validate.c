/* Validation speed: gql_validate_document with all specified rules on
 * (schema, document) pairs. The schema is built and the document parsed
 * once; each validation reuses one arena, reset in between, as a server
 * reuses a request arena. Prints one line per pair: document bytes, median
 * µs per validation, errors found, arena allocator calls per validation in
 * the steady state and arena bytes used.
 *
 *   bench_validate --generate FILE OPERATIONS   writes a large valid
 *                                               document for the Star Wars
 *                                               schema
 *   bench_validate [--rule NAME] NAME=SCHEMA:DOCUMENT...
 *                                   measures (all rules, or only NAME) */
#include "bench_util.h"
#include "core/core.h"
#include "schema/schema.h"
#include "validation/validation.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct job {
  const gql_vrule *const *rules; /* NULL: all */
  uint32_t nrules;
  const gql_schema *schema;
  const gql_document *doc;
  gql_arena *arena;
  uint32_t errors;
  int failed;
} job;

static void validate_once(void *arg) {
  job *j = arg;
  gql_arena_reset(j->arena);
  gql_error_list errors;
  gql_error_list_init(&errors, j->arena, 0);
  if (gql_validate_document(j->schema, j->doc, j->rules, j->nrules, NULL,
                            &errors))
    j->failed = 1;
  j->errors = errors.count;
}

/* Operations over the Star Wars schema with variables, aliases, inline
 * fragments and named fragments, all valid. */
static void generate(FILE *f, unsigned ops) {
  for (unsigned j = 0; j < 10; j++)
    fprintf(f,
            "fragment CharF%u on Character {\n  id\n  name\n  appearsIn\n"
            "  friends { id name ... on Droid { primaryFunction } }\n}\n\n",
            j);
  for (unsigned i = 0; i < ops; i++)
    fprintf(f,
            "query Q%u($ep: Episode, $id: String!, $withFriends: Boolean = "
            "true) {\n"
            "  hero(episode: $ep) {\n    ...CharF%u\n"
            "    friends @include(if: $withFriends) {\n      name\n"
            "      ... on Human { homePlanet }\n"
            "      ... on Droid { primaryFunction }\n    }\n  }\n"
            "  h%u: human(id: $id) {\n    id\n    name\n    appearsIn\n"
            "    friends { id ...CharF%u }\n  }\n"
            "  d%u: droid(id: \"2001\") { id name primaryFunction }\n"
            "  empire: hero(episode: EMPIRE) { name }\n}\n\n",
            i, i % 10, i, (i + 1) % 10, i);
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "--generate") == 0) {
    FILE *f = fopen(argv[2], "w");
    if (!f)
      return 2;
    generate(f, (unsigned)strtoul(argv[3], NULL, 10));
    return fclose(f) ? 2 : 0;
  }
  if (argc < 2) {
    fprintf(stderr, "usage: bench_validate NAME=SCHEMA:DOCUMENT... | "
                    "--generate FILE OPERATIONS\n");
    return 2;
  }
  const gql_vrule *only = NULL;
  if (argc > 3 && strcmp(argv[1], "--rule") == 0) {
    only = gql_find_rule(argv[2], strlen(argv[2]));
    if (!only) {
      fprintf(stderr, "bench_validate: no rule %s\n", argv[2]);
      return 2;
    }
    argv += 2;
    argc -= 2;
  }
  printf("%-16s %10s %12s %8s %14s %12s\n", "document", "bytes", "us/validate",
         "errors", "allocs/valid.", "arena KB");
  for (int i = 1; i < argc; i++) {
    char *eq = strchr(argv[i], '=');
    char *colon = eq ? strchr(eq, ':') : NULL;
    if (!colon)
      return 2;
    *eq = 0;
    *colon = 0;
    size_t slen, qlen;
    char *sdl = bench_read_file(eq + 1, &slen);
    char *src = bench_read_file(colon + 1, &qlen);
    gql_arena *keep = gql_arena_new(NULL);
    gql_error_list serr;
    gql_error_list_init(&serr, keep, 0);
    gql_schema *schema = NULL;
    gql_schema_build_options so = {.skip_type_validation = true};
    if (gql_schema_build(sdl, slen, NULL, &so, &schema, &serr)) {
      fprintf(stderr, "bench_validate: %s does not build: %s\n", eq + 1,
              serr.count ? serr.items[0].message : "");
      return 1;
    }
    gql_document *doc;
    gql_syntax_error err;
    gql_parse_options po = {.max_tokens = UINT32_MAX, .max_size = SIZE_MAX};
    if (gql_parse_syntax(keep, src, qlen, &po, &doc, &err)) {
      fprintf(stderr, "bench_validate: %s does not parse: %s\n", colon + 1,
              err.message);
      return 1;
    }
    bench_counter cnt = {0};
    gql_allocator alc = bench_counting_allocator(&cnt);
    job j = {only ? &only : NULL,
             only ? 1 : 0,
             schema,
             doc,
             gql_arena_new(&alc),
             0,
             0};
    validate_once(&j);
    if (j.failed) {
      fprintf(stderr, "bench_validate: %s failed\n", argv[i]);
      return 1;
    }
    size_t arena_bytes = gql_arena_used(j.arena);
    int iters =
        bench_iters_for(validate_once, &j, 200000000u); /* 0.2 s a trial */
    uint64_t calls_before = cnt.calls;
    double ns = bench_median_ns(validate_once, &j, iters, 7);
    double per_run = (double)(cnt.calls - calls_before) / ((double)iters * 8);
    printf("%-16s %10zu %12.2f %8u %14.3f %12.1f\n", argv[i], qlen, ns / 1000.0,
           j.errors, per_run, (double)arena_bytes / 1024.0);
    gql_arena_free(j.arena);
    gql_schema_free(schema);
    gql_arena_free(keep);
    free(sdl);
    free(src);
  }
  return 0;
}
