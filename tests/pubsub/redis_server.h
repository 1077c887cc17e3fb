/* A real redis-server (Debian's) for the tests: started on a free loopback
 * port with no persistence, stopped, paused (SIGSTOP) and restarted on the
 * same port; a blocking hiredis connection to look behind the client's
 * back. */
#ifndef GQL_TEST_REDIS_SERVER_H
#define GQL_TEST_REDIS_SERVER_H

#include <criterion/criterion.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

typedef struct test_redis {
  pid_t pid;
  int port;
  char unix_path[108];
  const char *extra[8]; /* more redis-server arguments */
} test_redis;

static int test_free_port(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
  socklen_t n = sizeof a;
  getsockname(fd, (struct sockaddr *)&a, &n);
  close(fd);
  return ntohs(a.sin_port);
}

static redisContext *test_redis_sync(const test_redis *t) {
  struct timeval tv = {.tv_sec = 2};
  redisContext *c = t->port ? redisConnectWithTimeout("127.0.0.1", t->port, tv)
                            : redisConnectUnixWithTimeout(t->unix_path, tv);
  if (c && c->err) {
    redisFree(c);
    return NULL;
  }
  if (c)
    redisSetTimeout(c, tv);
  return c;
}

static void test_redis_start(test_redis *t) {
  if (!t->port && !t->unix_path[0])
    t->port = test_free_port();
  char port[16];
  snprintf(port, sizeof port, "%d", t->port);
  const char *argv[32] = {"redis-server",
                          "--port",
                          port,
                          "--bind",
                          "127.0.0.1",
                          "--save",
                          "",
                          "--appendonly",
                          "no",
                          "--enable-debug-command",
                          "local",
                          "--loglevel",
                          "warning"};
  int n = 13;
  if (t->unix_path[0]) {
    argv[n++] = "--unixsocket";
    argv[n++] = t->unix_path;
  }
  for (int i = 0; i < 8 && t->extra[i]; i++)
    argv[n++] = t->extra[i];
  argv[n] = NULL;
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    /* Dies with the test (a failed assertion ends it before its stop). */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    int dn = open("/dev/null", 1);
    if (dn >= 0)
      dup2(dn, 1);
    execvp("redis-server", (char *const *)argv);
    _exit(127);
  }
  t->pid = pid;
  /* Up once a PING is answered (AUTH errors count as up too). */
  for (int i = 0; i < 500; i++) {
    redisContext *c = test_redis_sync(t);
    if (c) {
      redisReply *r = redisCommand(c, "PING");
      bool up = r != NULL;
      if (r)
        freeReplyObject(r);
      redisFree(c);
      if (up)
        return;
    }
    int st;
    cr_assert_eq(waitpid(pid, &st, WNOHANG), 0, "redis-server exited");
    usleep(10000);
  }
  cr_assert_fail("redis-server did not start");
}

static void test_redis_stop(test_redis *t) {
  if (t->pid <= 0)
    return;
  kill(t->pid, SIGCONT);
  kill(t->pid, SIGKILL);
  waitpid(t->pid, NULL, 0);
  t->pid = 0;
}

static uint64_t test_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void test_wake(uv_timer_t *t) {
  (void)t;
}

/* Runs the loop until *flag or `ms` have passed; returns *flag. */
static bool test_run_until(uv_loop_t *loop, const bool *flag, uint64_t ms) {
  uv_timer_t tick;
  uv_timer_init(loop, &tick);
  uv_timer_start(&tick, test_wake, 5, 5);
  uint64_t end = test_now_ms() + ms;
  while (!*flag && test_now_ms() < end)
    uv_run(loop, UV_RUN_ONCE);
  uv_close((uv_handle_t *)&tick, NULL);
  uv_run(loop, UV_RUN_NOWAIT);
  return *flag;
}

#endif
