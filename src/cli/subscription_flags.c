/* The configuration file's `subscription` section as gql serve / gql
 * gateway flags (docs/config.md#subscription): each flag sets the key of
 * the same meaning and range, and a flag given overrides the file.
 * Durations and sizes in plain numbers, as the other server flags take
 * them (milliseconds, bytes). */
#include "cli.h"

static const char *const with_value[] = {
    "--subscriptions",
    "--max-opened-subscriptions",
    "--max-subscriptions-per-connection",
    "--subscription-queue-capacity",
    "--subscription-ping-interval",
    "--subscription-init-timeout",
    "--subscription-max-message",
    "--subscription-sse-reservation-ttl",
    "--subscription-channel-prefix",
    "--subscription-max-event",
};

int gql_cli_subscription_flag(const char *cmd, gql_settings *st, int argc,
                              char **argv, int *i) {
  const char *a = argv[*i];
  const char *v;
  int taken = gql_cli_take_value(cmd, argc, argv, i, with_value,
                                 GQL_ARRAY_LEN(with_value), &v);
  if (taken <= 0)
    return taken;
  gql_cfg_subscription *sb = &st->subscription;
  unsigned long long n = 0;
  bool ok = true;
  if (strcmp(a, "--subscriptions") == 0) {
    ok = strcmp(v, "on") == 0 || strcmp(v, "off") == 0;
    if (!ok)
      fprintf(stderr, "%s: --subscriptions takes on or off, not '%s'\n", cmd,
              v);
    sb->enabled = strcmp(v, "on") == 0 ? GQL_CFG_TRUE : GQL_CFG_FALSE;
  } else if (strcmp(a, "--max-opened-subscriptions") == 0) {
    ok = gql_cli_parse_range(cmd, a, v, 1, 10000000, &n);
    sb->max_opened_subscriptions = (uint32_t)n;
  } else if (strcmp(a, "--max-subscriptions-per-connection") == 0) {
    ok = gql_cli_parse_range(cmd, a, v, 1, 100000, &n);
    sb->max_subscriptions_per_connection = (uint32_t)n;
  } else if (strcmp(a, "--subscription-queue-capacity") == 0) {
    ok = gql_cli_parse_range(cmd, a, v, 1, 1000000, &n);
    sb->queue_capacity = (uint32_t)n;
  } else if (strcmp(a, "--subscription-ping-interval") == 0) {
    ok = gql_cli_parse_range(cmd, a, v, 100, 3600000, &n);
    sb->ping_interval_ms = n;
  } else if (strcmp(a, "--subscription-init-timeout") == 0) {
    ok = gql_cli_parse_range(cmd, a, v, 1, 3600000, &n);
    sb->init_timeout_ms = n;
  } else if (strcmp(a, "--subscription-max-message") == 0) {
    ok = gql_cli_parse_range(cmd, a, v, 64, (unsigned long long)1 << 30, &n);
    sb->max_message_bytes = n;
  } else if (strcmp(a, "--subscription-max-event") == 0) {
    ok = gql_cli_parse_range(cmd, a, v, 64, (unsigned long long)256 << 20, &n);
    sb->max_event_bytes = n;
  } else if (strcmp(a, "--subscription-sse-reservation-ttl") == 0) {
    ok = gql_cli_parse_range(cmd, a, v, 100, 3600000, &n);
    sb->sse_reservation_ttl_ms = n;
  } else {
    ok = strlen(v) <= 256;
    if (!ok)
      fprintf(stderr, "%s: --subscription-channel-prefix is over 256 bytes\n",
              cmd);
    sb->channel_prefix = v;
  }
  return ok ? 1 : -1;
}
