#include "cli.h"

#include <errno.h>
#include <stdlib.h>

static const gql_cli_command *const commands[] = {
    &gql_cmd_format, &gql_cmd_print_schema, &gql_cmd_exec,   &gql_cmd_validate,
    &gql_cmd_serve,  &gql_cmd_gateway,      &gql_cmd_config,
};

static void print_help(FILE *f) {
  fprintf(f,
          "gql %s — a GraphQL engine, server and gateway\n\n"
          "Usage: gql COMMAND [OPTIONS] [ARGS]\n\nCommands:\n",
          gql_version());
  for (size_t i = 0; i < GQL_ARRAY_LEN(commands); i++)
    fprintf(f, "  %-14s %s\n", commands[i]->name, commands[i]->summary);
  fprintf(f, "\nOptions:\n  --version      print the version and exit\n"
             "  --help         print this help and exit\n\n"
             "`gql COMMAND --help` describes a command.\n");
}

char *gql_cli_read_file(const char *path, size_t *len) {
  return gql_cli_read_file_as("gql", path, len);
}

char *gql_cli_read_file_as(const char *cmd, const char *path, size_t *len) {
  bool std_in = !path || strcmp(path, "-") == 0;
  FILE *f = std_in ? stdin : fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "%s: cannot open %s: %s\n", cmd, path, strerror(errno));
    return NULL;
  }
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap + 1);
  while (buf) {
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (n < cap) {
      if (ferror(f)) {
        fprintf(stderr, "%s: cannot read %s: %s\n", cmd,
                gql_cli_display_name(path), strerror(errno));
        free(buf);
        buf = NULL;
      }
      break;
    }
    cap *= 2;
    char *grown = realloc(buf, cap + 1);
    if (!grown)
      free(buf);
    buf = grown;
  }
  if (!std_in)
    fclose(f);
  if (!buf)
    return NULL;
  buf[n] = 0;
  *len = n;
  return buf;
}

const char *gql_cli_display_name(const char *path) {
  return !path || strcmp(path, "-") == 0 ? "<stdin>" : path;
}

bool gql_cli_wants_help(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0)
      break;
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
      return true;
  }
  return false;
}

void gql_cli_usage(const gql_cli_command *cmd, FILE *f) {
  fprintf(f, "%s", cmd->usage);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    print_help(stderr);
    return 2;
  }
  const char *name = argv[1];
  if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
    printf("gql %s\n", gql_version());
    return 0;
  }
  if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 ||
      strcmp(name, "help") == 0) {
    if (argc > 2) {
      for (size_t i = 0; i < GQL_ARRAY_LEN(commands); i++)
        if (strcmp(argv[2], commands[i]->name) == 0) {
          gql_cli_usage(commands[i], stdout);
          return 0;
        }
    }
    print_help(stdout);
    return 0;
  }
  for (size_t i = 0; i < GQL_ARRAY_LEN(commands); i++) {
    if (strcmp(name, commands[i]->name) == 0) {
      if (gql_cli_wants_help(argc - 1, argv + 1)) {
        gql_cli_usage(commands[i], stdout);
        return 0;
      }
      return commands[i]->run(argc - 1, argv + 1);
    }
  }
  fprintf(stderr, "gql: unknown command '%s'\n\n", name);
  print_help(stderr);
  return 2;
}
