/* Hot reload's triggers, on gql_http_server_run's loop: SIGHUP, and a
 * change to one of the watched files. A file is watched through its
 * directory (inotify on the file itself would lose it when an editor or a
 * deploy replaces the file by a rename, and Kubernetes swaps a ConfigMap's
 * files by renaming its "..data" link), and the changes are debounced:
 * editors write a file in several steps, so the load waits until the
 * directory has been quiet for debounce_ms. The load itself (reading,
 * parsing, building) runs here, off the workers, which keep serving the
 * old generation until the new one is published. */
#include "http.h"

#include <signal.h>
#include <stdlib.h>

typedef struct watch {
  uv_fs_event_t ev;
  struct gql_http_reloader *owner;
  char *dir;
} watch;

struct gql_http_reloader {
  gql_http_swap_target target;
  const gql_http_options *opt;
  const gql_http_reload *rl;
  uv_signal_t sighup;
  uv_timer_t debounce;
  watch *watches;
  unsigned nwatches;
  int open_handles;
  bool stopped;
};

static void on_closed(uv_handle_t *h) {
  gql_http_reloader *r = h->data;
  if (--r->open_handles)
    return;
  for (unsigned i = 0; i < r->nwatches; i++)
    free(r->watches[i].dir);
  free(r->watches);
  free(r);
}

static void reload(gql_http_reloader *r, const char *why) {
  gql_http_generation g = {0};
  uint64_t was = r->target.generation(r->target.ud);
  gql_http_log(r->opt, GQL_HTTP_LOG_INFO, "reload (%s)", why);
  int rc = r->rl->load(r->rl->ud, &g);
  if (rc < 0) {
    gql_http_log(r->opt, GQL_HTTP_LOG_ERROR,
                 "reload (%s) failed: still serving generation %llu", why,
                 (unsigned long long)was);
    return;
  }
  rc = r->target.swap(r->target.ud, &g);
  if (rc < 0) {
    gql_http_log(r->opt, GQL_HTTP_LOG_ERROR,
                 "reload (%s) failed: %s; still serving generation %llu", why,
                 gql_strerror(rc), (unsigned long long)was);
    if (g.release)
      g.release(g.ud);
    return;
  }
  gql_http_log(r->opt, GQL_HTTP_LOG_INFO, "reloaded: generation %llu",
               (unsigned long long)r->target.generation(r->target.ud));
}

static void on_sighup(uv_signal_t *h, int signum) {
  (void)signum;
  reload(h->data, "SIGHUP");
}

static void on_settled(uv_timer_t *t) {
  reload(t->data, "file changed");
}

/* The base name of `path`. */
static const char *base_of(const char *path) {
  const char *b = strrchr(path, '/');
  return b ? b + 1 : path;
}

/* The directory of `path` ("." for a bare name), malloc'd. */
static char *dir_of(const char *path) {
  const char *b = strrchr(path, '/');
  if (!b)
    return strdup(".");
  size_t n = b == path ? 1 : (size_t)(b - path);
  char *d = malloc(n + 1);
  if (d) {
    memcpy(d, path, n);
    d[n] = 0;
  }
  return d;
}

static void on_fs_event(uv_fs_event_t *h, const char *filename, int events,
                        int status) {
  (void)events;
  watch *w = (watch *)h;
  gql_http_reloader *r = w->owner;
  if (status < 0 || r->stopped)
    return;
  bool ours = !filename || strncmp(filename, "..", 2) == 0;
  for (unsigned i = 0; !ours && i < r->rl->nwatch; i++) {
    const char *f = r->rl->watch[i];
    char *d = dir_of(f);
    ours = d && strcmp(d, w->dir) == 0 && strcmp(base_of(f), filename) == 0;
    free(d);
  }
  if (ours) /* (re)starts the wait: the load runs once writing has settled */
    uv_timer_start(&r->debounce, on_settled,
                   r->rl->debounce_ms ? r->rl->debounce_ms : 100, 0);
}

gql_http_reloader *gql_http_reloader_start(uv_loop_t *loop,
                                           const gql_http_swap_target *target,
                                           const gql_http_options *opt) {
  const gql_http_reload *rl = opt->reload;
  if (!rl || !rl->load)
    return NULL;
  gql_http_reloader *r = calloc(1, sizeof *r);
  if (!r || !(r->watches = calloc(rl->nwatch + 1, sizeof *r->watches))) {
    free(r);
    gql_http_log(opt, GQL_HTTP_LOG_ERROR, "out of memory: no reload");
    return NULL;
  }
  r->target = *target;
  r->opt = opt;
  r->rl = rl;
  uv_signal_init(loop, &r->sighup);
  uv_timer_init(loop, &r->debounce);
  r->sighup.data = r->debounce.data = r;
  r->open_handles = 2;
  uv_signal_start(&r->sighup, on_sighup, SIGHUP);
  for (unsigned i = 0; i < rl->nwatch; i++) {
    char *d = dir_of(rl->watch[i]);
    bool seen = !d;
    for (unsigned k = 0; !seen && k < r->nwatches; k++)
      seen = strcmp(r->watches[k].dir, d) == 0;
    if (seen) {
      free(d);
      continue;
    }
    watch *w = &r->watches[r->nwatches];
    w->owner = r;
    w->dir = d;
    uv_fs_event_init(loop, &w->ev);
    w->ev.data = r;
    r->open_handles++;
    r->nwatches++;
    int e = uv_fs_event_start(&w->ev, on_fs_event, d, 0);
    if (e < 0)
      gql_http_log(opt, GQL_HTTP_LOG_WARN,
                   "cannot watch %s for changes (%s): SIGHUP reloads it",
                   rl->watch[i], uv_strerror(e));
  }
  return r;
}

void gql_http_reloader_stop(gql_http_reloader *r) {
  if (!r || r->stopped)
    return;
  r->stopped = true;
  uv_close((uv_handle_t *)&r->sighup, on_closed);
  uv_close((uv_handle_t *)&r->debounce, on_closed);
  for (unsigned i = 0; i < r->nwatches; i++)
    uv_close((uv_handle_t *)&r->watches[i].ev, on_closed);
}
