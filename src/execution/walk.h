/* The walk's entry for the files above it (walk.c). */
#ifndef GQL_EXEC_WALK_H
#define GQL_EXEC_WALK_H

#include "executor.h"

static inline bool exec_object_direct(exec_ctx *ctx, const plan_set *ps,
                                      const void *parent,
                                      const path_frame *path) {
  if (ps->all_members && !ctx->hooks && parent)
    return gql_exec_members_object(ctx, ps, parent, path);
  return gql_exec_object_direct(ctx, ps, parent, path);
}

#endif
