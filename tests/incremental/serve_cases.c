/*
 * incremental_serve: every execution case of the corpus served by gql's
 * HTTP server (libgql_http: Accept negotiation, src/http/stream.c's
 * multipart/mixed and text/event-stream, the deferSpec=20220824
 * conversion), each on its own port with its schema and root value, the
 * fields resolved as markers.h says: so that the npm clients read gql
 * itself over real HTTP for all 78 cases, the $async / $error ones
 * included (gql serve --data has no markers). A tick is one turn of the
 * worker's libuv loop (an idle handle, active while a field pends).
 *
 * Usage: incremental_serve CASES_DIR/exec [NAME...]
 * Prints "NAME URL" per case, then "ready"; runs until SIGINT or SIGTERM.
 */
#include "gql_http.h"
#include "markers.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

typedef struct worker {
  inc_markers m;
  uv_idle_t idle;
} worker;

static void on_idle(uv_idle_t *h) {
  worker *w = h->data;
  if (!inc_markers_tick(&w->m))
    uv_idle_stop(h);
}

static void wake(void *ud) {
  worker *w = ud;
  if (!uv_is_active((uv_handle_t *)&w->idle))
    uv_idle_start(&w->idle, on_idle);
}

static void *worker_start(void *ud, uv_loop_t *loop) {
  (void)ud;
  worker *w = calloc(1, sizeof *w);
  if (!w)
    return NULL;
  w->m.wake = wake;
  w->m.wake_ud = w;
  uv_idle_init(loop, &w->idle);
  w->idle.data = w;
  return w;
}

static void worker_stop(void *ud) {
  worker *w = ud;
  uv_close((uv_handle_t *)&w->idle, NULL);
}

static void worker_free(void *ud) {
  worker *w = ud;
  inc_markers_free(&w->m);
  free(w);
}

static const gql_http_service service = {.worker_start = worker_start,
                                         .worker_stop = worker_stop,
                                         .worker_free = worker_free};

static void resolve(const gql_resolve_info *info, const void *parent,
                    gql_out *out) {
  worker *w = gql_http_service_worker(info);
  inc_ctx x = {&w->m, gql_http_request_arena(gql_http_request_of(info))};
  inc_markers_resolve(x, info, parent, out);
}

typedef struct served {
  inc_case c;
  char *text;
  gql_http_server *server;
} served;

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: incremental_serve CASES_DIR/exec [NAME...]\n");
    return 2;
  }
  /* the cases: the names given, else every NAME.json of the folder */
  char **names = NULL;
  size_t n = 0;
  if (argc > 2) {
    names = argv + 2;
    n = (size_t)argc - 2;
  } else {
    DIR *d = opendir(argv[1]);
    struct dirent *e;
    size_t cap = 0;
    while (d && (e = readdir(d))) {
      size_t l = strlen(e->d_name);
      if (l < 6 || strcmp(e->d_name + l - 5, ".json") != 0)
        continue;
      if (n == cap &&
          !(names = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof *names)))
        return 2;
      names[n++] = strndup(e->d_name, l - 5);
    }
    if (d)
      closedir(d);
    qsort(names, n, sizeof *names, by_name);
  }
  setvbuf(stdout, NULL, _IOLBF, 0); /* a reader sees whole lines */
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGINT);
  sigaddset(&sigs, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &sigs, NULL); /* the workers inherit it */
  gql_arena *arena = gql_arena_new(NULL);
  served *s = calloc(n ? n : 1, sizeof *s);
  if (!arena || !s)
    return 2;
  int rc = 0;
  for (size_t i = 0; i < n && !rc; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.json", argv[1], names[i]);
    if (inc_case_load(path, arena, &s[i].text, &s[i].c, resolve, NULL, 0) < 0) {
      rc = 1;
      break;
    }
    gql_http_options o = {.port = -1,
                          .threads = 1,
                          .root_value = s[i].c.root_value,
                          .service = &service,
                          .log_name = "incremental_serve"};
    if (gql_http_server_new(s[i].c.schema, &o, &s[i].server) < 0 ||
        gql_http_server_start(s[i].server) < 0) {
      fprintf(stderr, "incremental_serve: %s does not start\n", names[i]);
      rc = 1;
      break;
    }
    printf("%s http://127.0.0.1:%d/graphql\n", names[i],
           gql_http_server_port(s[i].server));
  }
  if (!rc) {
    printf("ready\n");
    fflush(stdout);
    int sig;
    sigwait(&sigs, &sig);
  }
  for (size_t i = 0; i < n; i++)
    if (s[i].server)
      gql_http_server_stop(s[i].server);
  for (size_t i = 0; i < n; i++) {
    if (s[i].server) {
      gql_http_server_wait(s[i].server);
      gql_http_server_free(s[i].server);
    }
    if (s[i].c.schema)
      gql_schema_free(s[i].c.schema);
    free(s[i].text);
  }
  if (argc == 2) {
    for (size_t i = 0; i < n; i++)
      free(names[i]);
    free(names);
  }
  free(s);
  gql_arena_free(arena);
  return rc;
}
