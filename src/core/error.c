#include "core.h"

const char *gql_version(void) {
  return GQL_VERSION_STRING;
}

const char *gql_strerror(int err) {
  switch (err) {
  case GQL_OK:
    return "success";
#define X(name, val, msg)                                                      \
  case GQL_E##name:                                                            \
    return msg;
    GQL_ERRNO_MAP(X)
#undef X
  }
  return "unknown error";
}

const char *gql_err_name(int err) {
  switch (err) {
  case GQL_OK:
    return "GQL_OK";
#define X(name, val, msg)                                                      \
  case GQL_E##name:                                                            \
    return "GQL_E" #name;
    GQL_ERRNO_MAP(X)
#undef X
  }
  return "GQL_EUNKNOWN";
}
