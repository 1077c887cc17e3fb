/* Compares gql's JSON reader and writer with cJSON on response-like
 * documents: the flat_list response of ../shared/bench/README.md (1000
 * items with id, name, email, active, score, role) and a variant whose
 * strings carry escapes and non-ASCII text. Prints MB/s of JSON text for
 * each; the best of several rounds counts.
 *
 * Usage: bench_json [ROUNDS]   (default 7) */
#include "json/json.h"

#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *const roles[] = {"ADMIN", "USER", "GUEST"};

/* The flat_list response, byte for byte as graphql-js writes it. With
 * `fancy`, names carry an escape and non-ASCII text. */
static void make_doc(gql_buf *b, int items, bool fancy) {
  gql_buf_puts(b, "{\"data\":{\"items\":[");
  char name[64];
  for (int i = 0; i < items; i++) {
    if (i)
      gql_buf_putc(b, ',');
    gql_buf_puts(b, "{\"id\":");
    gql_json_write_int(b, i);
    gql_buf_puts(b, ",\"name\":");
    int n = fancy ? snprintf(name, sizeof name, "item \"%d\" — café", i)
                  : snprintf(name, sizeof name, "item%d", i);
    gql_json_write_string(b, gql_str_from(name, (size_t)n));
    n = snprintf(name, sizeof name, "item%d@example.com", i);
    gql_buf_puts(b, ",\"email\":");
    gql_json_write_string(b, gql_str_from(name, (size_t)n));
    gql_buf_puts(b, i % 2 == 0 ? ",\"active\":true" : ",\"active\":false");
    gql_buf_puts(b, ",\"score\":");
    gql_json_write_double(b, i * 0.5);
    gql_buf_puts(b, ",\"role\":\"");
    gql_buf_puts(b, roles[i % 3]);
    gql_buf_puts(b, "\"}");
  }
  gql_buf_puts(b, "]}}");
}

typedef struct bench {
  const char *text;
  size_t len;
  gql_arena *arena;
  const gql_json_value *value;
  cJSON *cvalue;
  gql_buf out;
  size_t sink;
} bench;

static void gql_read(bench *b) {
  gql_arena_reset(b->arena);
  gql_json_value *v;
  if (gql_json_parse(b->arena, b->text, b->len, NULL, &v, NULL)) {
    fprintf(stderr, "gql_json_parse failed\n");
    exit(1);
  }
  b->sink += v->kind;
}

static void cjson_read(bench *b) {
  cJSON *v = cJSON_ParseWithLength(b->text, b->len);
  if (!v) {
    fprintf(stderr, "cJSON_ParseWithLength failed\n");
    exit(1);
  }
  b->sink += (size_t)v->type;
  cJSON_Delete(v);
}

static void gql_write(bench *b) {
  b->out.len = 0;
  gql_json_write_value(&b->out, b->value);
  b->sink += b->out.len;
}

static void cjson_write(bench *b) {
  char *s = cJSON_PrintUnformatted(b->cvalue);
  b->sink += strlen(s);
  cJSON_free(s);
}

/* MB/s of `b->len` bytes per call, best of `rounds` rounds of ~0.2 s. */
static double measure(bench *b, void (*fn)(bench *), int rounds) {
  int iters = 1;
  double t0 = now();
  fn(b);
  double one = now() - t0;
  if (one > 0)
    iters = (int)(0.2 / one) + 1;
  double best = 1e30;
  for (int r = 0; r < rounds; r++) {
    t0 = now();
    for (int i = 0; i < iters; i++)
      fn(b);
    double t = (now() - t0) / iters;
    if (t < best)
      best = t;
  }
  return (double)b->len / best / 1e6;
}

static void run(const char *name, bool fancy, int rounds) {
  gql_buf doc;
  gql_buf_init(&doc, NULL);
  make_doc(&doc, 1000, fancy);
  bench b = {.text = doc.data, .len = doc.len};
  b.arena = gql_arena_new(NULL);
  gql_buf_init(&b.out, NULL);
  gql_json_value *v;
  gql_arena *keep = gql_arena_new(NULL);
  if (gql_json_parse(keep, b.text, b.len, NULL, &v, NULL)) {
    fprintf(stderr, "%s: parse failed\n", name);
    exit(1);
  }
  b.value = v;
  b.cvalue = cJSON_ParseWithLength(b.text, b.len);

  /* Both writers must print the document back unchanged (cJSON prints
   * 0.5 steps the same way); a difference would make the figures moot. */
  gql_write(&b);
  if (b.out.len != b.len || memcmp(b.out.data, b.text, b.len))
    fprintf(stderr, "%s: gql output differs from the input\n", name);

  double gr = measure(&b, gql_read, rounds);
  double cr = measure(&b, cjson_read, rounds);
  double gw = measure(&b, gql_write, rounds);
  double cw = measure(&b, cjson_write, rounds);
  printf("%-16s %7zu B  read: gql %7.1f MB/s  cJSON %7.1f MB/s  (x%.2f)"
         "   write: gql %7.1f MB/s  cJSON %7.1f MB/s  (x%.2f)\n",
         name, b.len, gr, cr, gr / cr, gw, cw, gw / cw);
  if (b.sink == 42)
    printf("\n");
  cJSON_Delete(b.cvalue);
  gql_buf_free(&b.out);
  gql_arena_free(b.arena);
  gql_arena_free(keep);
  gql_buf_free(&doc);
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 7;
  if (rounds < 1)
    rounds = 1;
  run("flat_list", false, rounds);
  run("flat_list_utf8", true, rounds);
  return 0;
}
