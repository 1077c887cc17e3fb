/*
 * The executor's state and the helpers of its hot paths. The executor's
 * files, each calling only those below it:
 *   subscribe.c gql_subscribe: the subscribe phase, then one execution
 *               per event of the stream
 *   execute.c   gql_execute: the context, early answers, the root
 *   members.c   members as resolvers (gql_schema_set_member's fields)
 *   bulk.c      the bulk list writers (gql_out_object_array, _object_ptrs,
 *               _enum_indices)
 *   out.c       the public writers (gql_out_*), what a resolver is told,
 *               a subscription root field's value (gql_exec_sub_resolver)
 *   incremental.c gql_execute_incremental's payloads: execution groups
 *               and streamed items run in contexts of their own
 *   eager.c     gql_execute_incremental of an eager_only operation: the
 *               walk writes the payloads' entries (fast_defer)
 *   complete.c  general completion: objects, abstract types, lists, JSON
 *   deliver.c   the response: errors, the tree written out, on_done
 *   tree.c      tree mode: the response tree, pending fields, mutations
 *   defer.c     an incremental execution's split of a set's fields, its
 *               deferred fragments and streams (records; runs nothing)
 *   walk.c      the direct-mode walk: objects, fields, members, lists of
 *               objects written straight into the buffer
 *   hooks.c     hooks and the tracer's protocol (hooks.h) at a call
 *   leaf.c      leaf values on the general path
 *   errors.c    errors and null propagation
 * The recursion of a response (an object's field's resolver writes an
 * object) runs through the resolvers, called through their pointers: the
 * writers call down into the walk, and the walk never calls a writer.
 * Helpers shared by several files are static inline here (always_inline
 * where the measured code relied on it being inlined), or, out of line and
 * cold, a static copy per file (noinline); none calls into a file above
 * this header. walk.h and deliver.h hold the inline helpers that call into
 * walk.c and deliver.c; fast.h the writers of an eager_only execution's
 * entries (they call deliver.c's error writers).
 */
#ifndef GQL_EXECUTOR_H
#define GQL_EXECUTOR_H

#include "exec.h"
#include "hooks.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define GQL_EXEC_HAVE_TSC 1
#endif

typedef struct path_frame {
  const struct path_frame *parent;
  const gql_str *key; /* the plan field's key, or NULL for a list index */
  /* index and last only when key is NULL (a field's frame leaves them
   * unset); last: the list's last index when every item is certain to call
   * the fields an earlier one called (see items_last), else 0 */
  int64_t index;
  int64_t last;
} path_frame;

enum { R_EMPTY, R_BYTES, R_NULL, R_OBJECT, R_LIST };

typedef struct rnode {
  uint8_t kind;
  bool nullable;
  struct rnode *parent;
  size_t start, end;   /* R_BYTES: range of the byte buffer */
  struct rnode *kids;  /* R_OBJECT, R_LIST */
  const gql_str *keys; /* R_OBJECT */
  uint32_t nkids;
} rnode;

typedef struct exec_error {
  const char *message;
  gql_location *locs;
  uint32_t nlocs;
  const char *path; /* JSON array or NULL */
} exec_error;

typedef struct serial_walk {
  const plan_field **fields;
  uint32_t count, next;
  const void *parent;
  rnode *node;
} serial_walk;

/* The state of one execution. A request whose root type is synchronous
 * all the way down (direct mode) ends inside gql_execute, and its context
 * lives on gql_execute's stack; tree mode's may outlive the call (fields
 * pend) and is in the request arena. Members under "tree mode" are set only
 * by gql_exec_tree. */
typedef struct exec_ctx {
  const gql_prepared *p;
  const gql_schema *s;
  gql_arena *arena;
  uint8_t owns; /* OWN_ARENA, OWN_OUTPUT: what deliver frees */
  bool aborted;
  bool last_stamps; /* the hooks' last_stamps, in direct mode */
  bool owed; /* a stamp may be GQL_STAMP_OWED (see gql_exec_stamps_settle) */
  /* the walks look at sets with check_conds before their fields: a @skip
   * or @include's `if` may have no boolean value (conds_bad: a variable
   * without one, unvalidated literals), and sets with check_conds are
   * checked (gql_exec_conditions_fail); or an incremental execution's
   * initial result runs in direct mode, and its sets with a @defer split
   * (gql_exec_object_checked) */
  bool cond_check;
  bool conds_bad; /* (read only when cond_check) */
  gql_buf *out;   /* where values are written: the response, or the bytes of
                   * tree mode */
  gql_buf resp;
  gql_output *output;
  const gql_json_value **vars;
  const gql_json_value **slots;
  exec_error *errs;
  uint32_t nerrs, cap;
  const gql_exec_hooks *hooks; /* the protocol (hooks.h), or NULL */
  void *context;
  void (*on_done)(void *, const char *, size_t, bool);
  void *ud;
  /* tree mode */
  bool walking;
  bool done; /* the response has been delivered */
  uint32_t pending;
  rnode *root;
  gql_buf bytes;      /* the values, ranges of which the tree's nodes are */
  serial_walk serial; /* a mutation's root fields, one at a time */
  /* set only when used */
  gql_output own_output; /* params->output is NULL */
  /* vars and slots when the operation has few (no arena call) */
  const gql_json_value *few_vars[4], *few_slots[4];
  /* A subscription operation's phase (subscribe.c): set by answer_early,
   * read only by the root field's gql_exec_sub_resolver; NULL when it
   * runs once (subscription_once). */
  struct exec_sub *sub;
  /* Incremental delivery (defer.c, incremental.c), tree mode only: the
   * execution's state (NULL: a plain execution, gql_exec_tree sets it) and
   * the execution group this context runs (NULL: the initial result). */
  struct inc_state *inc;
  struct inc_group *group;
  /* An incremental execution of an eager_only operation (eager.c): its
   * payloads' entries, written by the walk (NULL: none; set where inc
   * is) */
  struct inc_fast *fast;
} exec_ctx;

/* ---- incremental delivery (defer.c records, incremental.c delivers) */

/* Ids and list indices: the JSON writer's digits (json.h). */
static inline uint32_t inc_digits(uint64_t v) {
  return (uint32_t)gql_json_count_digits(v);
}

/* Writes the `n` (inc_digits) decimal digits of v ending at `end`. */
static inline void inc_put_digits(char *end, uint64_t v) {
  gql_json_utoa_back(end, v);
}

/* A failed fragment of an eager_only execution: its object became null. */
typedef struct inc_fast_fail {
  struct inc_fast_fail *next;
  uint32_t id;
  gql_str errors;
} inc_fast_fail;

/* An eager_only execution's entries, as the walk writes them (walk.c's
 * fast_defer): the fragments' ids count up in the walk's order. */
typedef struct inc_fast {
  gql_buf pend;  /* [{"id":"0","path":[...]},... */
  gql_buf eager; /* {"hasNext":false,"incremental":[ and the entries */
  size_t head;   /* eager's head */
  uint32_t n;    /* fragments met (the next id) */
  bool errs;     /* an entry has errors, or a fragment failed */
  inc_fast_fail *fails, **ftail; /* in id order */
  /* the next id's decimal digits, then `"` (copied 16 bytes at a time) */
  char id[16];
  uint32_t idlen;
  /* While gql_exec_object_array writes a list whose items are deferred
   * whole: its field's frame, and its items' paths up to their index
   * (`["a",0,"b",`, pfx_len bytes; 0: not written yet); else NULL */
  const path_frame *pfx_frame;
  uint32_t pfx_len;
  char pfx[128]; /* (copied 32 bytes at a time) */
} inc_fast;

/* The id after the one in `id` (`len` digits, then `"` and one more
 * byte, which move with them): counted up in place, a digit more after 9,
 * 99, ... (ids stay under 10^13). */
static inline void gql_exec_fast_id_next(char *id, uint32_t *len) {
  uint32_t i = *len;
  while (i > 0 && id[i - 1] == '9')
    id[--i] = '0';
  if (i > 0) {
    id[i - 1]++;
    return;
  }
  memmove(id + 1, id, *len + 2);
  id[0] = '1';
  ++*len;
}

/* The length of response path `f` as JSON ([...], as gql_exec_path_json
 * writes it: a key is a GraphQL name, nothing to escape). */
static inline uint32_t gql_exec_path_json_len(const path_frame *f) {
  uint32_t n = 2;
  for (const path_frame *p = f; p; p = p->parent)
    n += (p->key ? (uint32_t)p->key->len + 2 : inc_digits((uint64_t)p->index)) +
         (p->parent != NULL);
  return n;
}

/* Writes path `f` as JSON into s, its gql_exec_path_json_len `n` bytes:
 * from the end, as the frames go up. */
static inline void gql_exec_path_json_put(char *s, uint32_t n,
                                          const path_frame *f) {
  char *w = s + n;
  *--w = ']';
  for (const path_frame *p = f; p; p = p->parent) {
    if (p->key) {
      *--w = '"';
      w -= p->key->len;
      gql_copy_short(w, p->key->ptr, p->key->len);
      *--w = '"';
    } else {
      inc_put_digits(w, (uint64_t)p->index);
      w -= inc_digits((uint64_t)p->index);
    }
    if (p->parent)
      *--w = ',';
  }
  *--w = '[';
  assert(w == s);
}

/* An eager group's entry in inc_state.eager (walk.c's inc_eager): at
 * [off, end) `,"data":...}` after its id (walked and not failed); errs:
 * it has errors; failed: its object became null (errors: why). */
typedef struct inc_entry {
  uint32_t off, end;
  bool walked, failed, errs;
  gql_str errors;
} inc_entry;

/* A deferred fragment (graphql-js's DeferredFragmentRecord): a @defer's
 * usage at one object of the response. */
typedef struct inc_record {
  const plan_defer *usage; /* NULL: a stream */
  gql_str label;           /* ptr NULL: none */
  size_t first;            /* a stream: its first item's index */
  const char *path;        /* JSON array */
  uint32_t path_len;
  struct inc_record *parent; /* the enclosing fragment's (NULL: none) */
  struct inc_group *maker;   /* the group whose walk made it (NULL: the
                              * initial result's) */
  const rnode *node;         /* its object in the maker's tree */
  uint32_t ngroups, ndone;
  int32_t id; /* -1 until announced in `pending` */
  /* the initial result's in direct mode, without a parent fragment: the id
   * it is expected to get (eager groups write it before it is announced) */
  int32_t pred;
  /* eager: its one group at its own object is eager and is not an
   * inc_group (counted in ngroups): `ekeep` the fields it writes, `entry`
   * what it wrote */
  bool eager;
  const bool *ekeep;
  inc_entry entry;
  bool dead; /* its object was nulled, or its parent failed */
  bool failed, completed;
  const char *errors; /* failed: the JSON array */
  struct inc_record *next;
  /* the record made before it for the same usage (newest first, from
   * inc_state.latest) and the next one its maker made */
  struct inc_record *prev_same, *next_made;
} inc_record;

/* What one context made, in order (settle and the announcements after a
 * group's delivery look only at these, not at every record). */
typedef struct inc_made {
  inc_record *recs, **rtail;
  struct inc_group *groups, **gtail;
} inc_made;

/* An execution group: the fields of one object whose @defer usages are the
 * same set (graphql-js's DeferredGroupedFieldSetRecord). */
typedef struct inc_group {
  const plan_defer **set; /* the usages its fields have */
  uint32_t nset;
  inc_record **recs; /* a group: the fragment of each usage of `set` */
  uint32_t nrecs;
  /* a streamed item's: the stream (its one record), the item's index, the
   * list and item function, the item type and the field's info */
  inc_record *stream;
  union {
    struct {
      size_t index;
      const void *list;
      gql_list_item_fn fn;
      gql_type_ref item;
      const gql_resolve_info *info;
    };
    /* eager: run at once by the initial result in direct mode (its entry:
     * failed and errors are the group's own; ekeep: its fields) */
    struct {
      inc_entry entry;
      const bool *ekeep;
    };
  };
  const plan_set *ps;
  struct split_memo *memo; /* its root's split when gql_prepare made it */
  const void *parent;
  const path_frame *path; /* copied */
  const char *path_json;
  uint32_t path_len;       /* path_json's */
  struct inc_group *maker; /* as inc_record's */
  const rnode *node;       /* its object in the maker's tree */
  exec_ctx *ctx; /* its own while it runs (a finished one's is reused) */
  rnode *root;
  bool dead, started, done, failed, delivered;
  bool eager;     /* (entry and ekeep above) */
  gql_str data;   /* done: the data object's JSON */
  gql_str errors; /* done: the errors array (len 0: none) */
  struct inc_group *next, *next_made;
  inc_made made; /* what its context made */
} inc_group;

typedef struct split_memo split_memo;

/* The eager groups gql_exec_defer_split made at the object it split last:
 * the records made there, among which those with eager, and `ngroups`
 * groups from `groups`, among which those with eager (NULL: none). */
typedef struct inc_eager_at {
  inc_record *recs;
  inc_group *groups;
  uint32_t ngroups;
} inc_eager_at;

typedef struct inc_state {
  exec_ctx *ctx; /* the initial result's */
  inc_record *recs, **rtail;
  inc_group *groups, **gtail;
  inc_made made; /* what the initial result's context made */
  /* per usage (gql_prepared.defers' order): its newest record */
  inc_record **latest;
  int32_t next_id;
  bool initial_sent, finished, pumping;
  bool direct;       /* the initial result runs in direct mode (no tree) */
  uint32_t running;  /* groups started and not done */
  uint8_t owns;      /* the initial context's owns, released at the end */
  exec_ctx *current; /* the context delivering now */
  bool *sync_done;   /* gql_exec_incremental's: set when finished in it */
  void (*on_payload)(void *, const char *, size_t, bool);
  void *ud;
  /* the payload being made: its pending, incremental and completed
   * entries, and whether one has errors */
  gql_buf pend, incr, comp;
  gql_allocator alc; /* the arena's: pend's, comp's, scratch's, the groups'
                      * contexts' */
  bool errs;
  gql_buf scratch; /* gql_exec_path_json's */
  /* The hooks (a trace) whose execute_finish comes with the last payload,
   * not the initial result's: every context runs a copy without it. */
  const gql_exec_hooks *finish_hooks;
  bool any_errs;            /* a payload had errors */
  struct split_memo *memos; /* defer.c's */
  /* A group's context that finished while it started, with its buffers,
   * for the next group (groups that run one after the other allocate one
   * context); in_start: a group is starting. */
  exec_ctx *spare;
  bool in_start;
  /* incr is the initial result's response buffer (the caller's output's),
   * taken once the initial result is out; in_initial: on_initial runs */
  bool took_resp, in_initial;
  /* progress's loops start at these links: to the first group not
   * delivered (nor dead), record not completed, record not announced,
   * group not started (each list's prefix before it is done with) */
  inc_group **gdeliv, **gstart;
  inc_record **rcomp, **rdue;
  /* Eager groups (walk.c's inc_eager): their incremental entries, written
   * with the ids their fragments are expected to get (npred: the next),
   * and those of the object split last. */
  gql_buf eager;
  int32_t npred;
  inc_eager_at eager_at;
} inc_state;

enum { OWN_ARENA = 1, OWN_OUTPUT = 2 };

/* An output handle. Its first member is the info a resolver of the field is
 * given (ctx, plan field and path are stored once, there): a field's output
 * is its own info; a list item's output shares ctx and plan field with the
 * field, has the item's path, and points `info` at the field's info. */
struct gql_out {
  gql_resolve_info own; /* own.ctx, own.pf and own.path are the output's */
  const gql_resolve_info *info; /* a list item's: the field's; NULL for a
                                 * field's own output: see out_info */
  gql_type_ref type;
  rnode *node; /* tree mode: the node this value fills */
  size_t mark; /* direct mode: where the value starts */
  bool written;
  bool prop; /* direct mode: the container must become null */
  bool pending_root;
  bool pended;      /* the resolver returned pending */
  bool field_level; /* a pending field (not a list item): its completion
                     * ends the resolver's trace span */
  uint8_t dleaf;    /* the writers' fast paths: the leaf kind (or
                     * LEAF_OBJECT) when `type` is the bare named type (T or
                     * T!), the value goes straight into the buffer (not
                     * tree mode) and nothing is written yet; else LEAF_NONE */
};

struct gql_pending {
  gql_out out;
  gql_resolve_info info;
};

#define DONE(o)                                                                \
  do {                                                                         \
    if ((o)->pending_root)                                                     \
      gql_exec_pending_done(o);                                                \
  } while (0)

/* What gql_out_object_array does when its fast path does not apply. */
typedef void (*gql_exec_array_fn)(gql_out *o, const void *base, size_t count,
                                  size_t stride, uint32_t type);

/* ---- the files' functions, bottom up */

/* complete.c */
void gql_exec_complete_composite(gql_out *o, const void *obj, uint32_t type);
void gql_exec_complete_list(gql_out *o, const void *list, size_t count,
                            gql_list_item_fn fn);
void gql_exec_not_iterable(gql_out *o);
void gql_exec_complete_json(gql_out *o, const gql_json_value *v);
void gql_exec_out_int_slow(gql_out *o, int64_t i);
void gql_exec_out_float_slow(gql_out *o, double d);
void gql_exec_out_string_slow(gql_out *o, const char *s, size_t len);
void gql_exec_out_bool_slow(gql_out *o, bool b);

/* deliver.c */
void gql_exec_write_errors(exec_ctx *ctx, gql_buf *b);
void gql_exec_deliver_hooks(exec_ctx *ctx, const gql_exec_hooks *h);
void gql_exec_finish(exec_ctx *ctx);
void gql_exec_errors_only(exec_ctx *ctx, bool with_null_data);
/* The errors of context `c` as a JSON array in its arena (an out-of-memory
 * error's array when it cannot). */
gql_str gql_exec_errors_array(exec_ctx *c);
/* The value at path `segs` (a JSON array of keys and indices) of `data`
 * (NULL: none). */
const gql_json_value *gql_exec_value_at(const gql_json_value *data,
                                        const gql_json_value *segs);
/* Whether the value at JSON path `path` (`[...]`) of `data` is an object. */
bool gql_exec_object_at(gql_arena *a, const gql_json_value *data,
                        const char *path);

/* Opens an entry of a pending, incremental or completed list in `b` with
 * its id: `[{"id":"N"` or `,{"id":"N"`, written in place. */
static inline void gql_exec_inc_entry_start(gql_buf *b, int32_t id) {
  if (GQL_UNLIKELY(b->cap - b->len < 24) && !gql_buf_reserve(b, 24))
    return;
  char *w = b->data + b->len;
  memcpy(w, ",{\"id\":\"", 8);
  w[0] = b->len ? ',' : '[';
  uint32_t n = inc_digits((uint32_t)id); /* (ids are not negative) */
  inc_put_digits(w + 8 + n, (uint32_t)id);
  w[8 + n] = '"';
  b->len += 9 + n;
}

/* Appends a string literal (its length known at compile time). */
#define PUT_LIT(b, lit) gql_buf_put((b), (lit), sizeof(lit) - 1)

/* A group's `errors` when they cannot be written. */
#define GQL_EXEC_OOM_ERRORS GQL_STR("[{\"message\":\"Out of memory.\"}]")
/* The response (or payload) when it cannot be written. */
#define GQL_EXEC_OOM_RESPONSE                                                  \
  GQL_STR("{\"errors\":[{\"message\":\"Out of memory.\"}]}")

/* What a context had when its walk was lent to a deferred group or
 * fragment (walk.c's eager_write and gql_exec_fast_defer, fast_array,
 * bulk.c's fast_item): its output and errors. */
typedef struct exec_lent {
  gql_buf *out;
  exec_error *errs;
  uint32_t nerrs, cap;
} exec_lent;

/* Lends ctx's walk with `out` as its output and an error list of its
 * own; gql_exec_give_back restores what it had. */
static inline exec_lent gql_exec_lend(exec_ctx *ctx, gql_buf *out) {
  exec_lent l = {ctx->out, ctx->errs, ctx->nerrs, ctx->cap};
  ctx->out = out;
  ctx->errs = NULL;
  ctx->nerrs = ctx->cap = 0;
  return l;
}

static inline void gql_exec_give_back(exec_ctx *ctx, const exec_lent *l) {
  ctx->out = l->out;
  ctx->errs = l->errs;
  ctx->nerrs = l->nerrs;
  ctx->cap = l->cap;
}

/* Writes the `subPath` of a group at JSON path `gpath` (`glen` bytes)
 * delivered at a fragment whose path is `rlen` bytes long: [..., "a", 0]
 * below [...] gives ["a", 0]; nothing when they are the same. */
static inline void gql_exec_inc_sub_path(gql_buf *b, size_t rlen,
                                         const char *gpath, size_t glen) {
  if (glen <= rlen)
    return;
  PUT_LIT(b, ",\"subPath\":[");
  size_t from = rlen == 2 ? 1 : rlen; /* past the fragment's path and ',' */
  gql_buf_put(b, gpath + from, glen - from);
}

/* The fragment a group's data is delivered at: the deepest of its
 * fragments (the shortest subPath), the first among equals. */
static inline const inc_record *gql_exec_inc_best(const inc_group *g) {
  const inc_record *b = g->recs[0];
  for (uint32_t i = 1; i < g->nrecs; i++)
    if (g->recs[i]->path_len > b->path_len)
      b = g->recs[i];
  return b;
}

/* incremental.c */
int gql_exec_incremental(exec_ctx *ctx, const void *root_value);
/* eager.c: an eager_only operation, untraced */
int gql_exec_eager(exec_ctx *ctx, const void *root_value);
/* tree.c */
void gql_exec_object_tree(exec_ctx *ctx, const plan_set *ps, const void *parent,
                          const path_frame *path, rnode *node, bool serial);
void gql_exec_pending_done(gql_out *o);
int gql_exec_tree(exec_ctx *ctx, const void *root_value);

/* defer.c */
/* The fields of group ctx->group's object (a deferred group, not a
 * stream's item), and in *direct whether they can be written straight
 * (gql_exec_object_direct_keep). NULL when out of memory. */
const bool *gql_exec_defer_group_fields(exec_ctx *ctx, const plan_set *ps,
                                        bool *direct);
/* The fields of `ps` the running context keeps at this object, by entry
 * (keep[nentries]: none is); its fragments and groups recorded. NULL when
 * out of memory. */
bool *gql_exec_defer_split(exec_ctx *ctx, const plan_set *ps,
                           const void *parent, const path_frame *path,
                           rnode *node);
bool gql_exec_stream_initial(const exec_ctx *ctx, const plan_field *pf,
                             size_t count, size_t *initial);
void gql_exec_stream_add(gql_out *o, const void *list, size_t count,
                         gql_list_item_fn fn, size_t initial,
                         gql_type_ref item);

/* walk.c */
void gql_exec_resolve_field(exec_ctx *ctx, const plan_field *pf,
                            const void *parent, const path_frame *path,
                            gql_out *o);
bool gql_exec_enum_list_write(gql_buf *b, const plan_field *pf, const char *p);
bool gql_exec_members_object(exec_ctx *ctx, const plan_set *ps,
                             const void *parent, const path_frame *path);
bool gql_exec_object_direct(exec_ctx *ctx, const plan_set *ps,
                            const void *parent, const path_frame *path);
bool gql_exec_object_checked(exec_ctx *ctx, const plan_set *ps,
                             const void *parent, const path_frame *path);
bool gql_exec_fast_defer(exec_ctx *ctx, const plan_set *ps, const void *parent,
                         const path_frame *path);
/* The paths of the items of list f->pfx_frame up to their index into
 * f->pfx (false: too long to keep; pfx_frame is then NULL). */
bool gql_exec_fast_prefix(inc_fast *f);
/* An eager_only execution starts writing the items of the list at frame
 * `list` (its field's): gql_exec_fast_defer writes their paths up to the
 * index once, into f->pfx, until the list's writer sets f->pfx_frame
 * NULL. */
static inline void gql_exec_fast_list(inc_fast *f, const path_frame *list) {
  f->pfx_frame = list;
  f->pfx_len = 0;
}
bool gql_exec_object_direct_keep(exec_ctx *ctx, const plan_set *ps,
                                 const void *parent, const path_frame *path,
                                 const bool *keep);
void gql_exec_object_array(gql_out *o, const void *base, size_t count,
                           size_t stride, uint32_t type,
                           gql_exec_array_fn general);
bool gql_exec_members_list(exec_ctx *ctx, gql_buf *b, const plan_field *pf,
                           const char *p, const path_frame *path);

/* hooks.c */
gql_exec_hooks *gql_exec_hooks_asking(exec_ctx *ctx, const gql_exec_hooks *h);
void gql_exec_resolve_field_hooked(exec_ctx *ctx, const plan_field *pf,
                                   const void *parent, gql_out *o);

/* leaf.c */
void gql_exec_serialize_leaf(gql_out *o, const gql_json_value *v);

/* conditions.c */
bool gql_exec_conditions_fail(exec_ctx *ctx, uint32_t type,
                              const path_frame *path);

/* errors.c */
const char *gql_exec_path_json(exec_ctx *ctx, const path_frame *f);
/* The same, written in `scratch` first (reused: no malloc each). */
const char *gql_exec_path_json_in(exec_ctx *ctx, const path_frame *f,
                                  gql_buf *scratch);
void gql_exec_add_error(exec_ctx *ctx, const char *msg, const plan_field *pf,
                        uint32_t off, const path_frame *path);
void gql_exec_tree_fail(exec_ctx *ctx, rnode *n);
void gql_exec_value_failed(gql_out *o);
void gql_exec_field_error(gql_out *o, const char *msg, uint32_t off);
void gql_exec_field_errorf(gql_out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void gql_exec_complete_null(gql_out *o);
void gql_exec_no_runtime_type(gql_out *o);
void gql_exec_not_object(gql_out *o, uint32_t t);
void gql_exec_not_possible(gql_out *o, uint32_t t);
void gql_exec_object_unresolved(gql_out *o, const void *obj, uint32_t t);
void gql_exec_stamps_settle(exec_ctx *ctx);

/* ---- helpers */
/* Whether an occurrence's @skip / @include conditions let it in: a
 * variable that is a boolean other than the condition wants leaves it out
 * (graphql-js: `skip.if === true`, `include.if === false`); one without a
 * boolean value never reaches here (gql_exec_conditions_fail). */
static inline bool occ_included(const exec_ctx *ctx, const plan_occ *o) {
  for (uint32_t i = 0; i < o->nconds; i++) {
    const gql_json_value *v = ctx->vars[o->conds[i].var];
    if (v && v->kind == GQL_JSON_BOOL && v->boolean != o->conds[i].want)
      return false;
  }
  return true;
}

/* Every write goes through here: a written output takes no fast path. */
static inline void set_written(gql_out *o) {
  o->written = true;
  o->dleaf = LEAF_NONE;
}

static inline bool begin(gql_out *o) {
  if (o->written)
    return false;
  set_written(o);
  return true;
}

static inline const gql_str *parent_name(const gql_out *o) {
  return &o->own.ctx->s->types[o->own.pf->parent_type].name;
}

static __attribute__((noinline, unused)) bool
field_included(const exec_ctx *ctx, const plan_set *ps, plan_entry e) {
  const plan_field *pf = &ps->fields[e.field];
  if (!occ_included(ctx, &pf->occs[e.occ]))
    return false;
  for (uint32_t j = 0; j < e.occ; j++)
    if (occ_included(ctx, &pf->occs[j]))
      return false;
  return true;
}

/* A struct member at p, whatever its alignment. */
#define MEMBER_LOAD(name, T)                                                   \
  static inline T name(const char *p) {                                        \
    T v;                                                                       \
    memcpy(&v, p, sizeof v);                                                   \
    return v;                                                                  \
  }

MEMBER_LOAD(ld_i32, int32_t)

MEMBER_LOAD(ld_i64, int64_t)

MEMBER_LOAD(ld_f64, double)

MEMBER_LOAD(ld_bool, bool)

MEMBER_LOAD(ld_str, gql_str)

MEMBER_LOAD(ld_cstr, const char *)

MEMBER_LOAD(ld_ptr, const char *)

MEMBER_LOAD(ld_u16, uint16_t)

MEMBER_LOAD(ld_u32, uint32_t)

MEMBER_LOAD(ld_u64, uint64_t)

#undef MEMBER_LOAD

/* A list member's count: an unsigned member of `size` bytes at p. */
static inline size_t ld_count(const char *p, uint8_t size) {
  switch (size) {
  case 1:
    return (uint8_t)*p;
  case 2:
    return ld_u16(p);
  case 4:
    return ld_u32(p);
  default: /* 8 */
    return (size_t)ld_u64(p);
  }
}

/* A list member's items: in the parent, or where its pointer member points
 * (NULL: a null list). */
static inline const char *ld_items(const char *parent, uint32_t off,
                                   bool items_inline) {
  return items_inline ? parent + off : ld_ptr(parent + off);
}

/* The type a list member of `pf` gives its object items: its own, but
 * for an abstract type without a resolve_type, no type (UINT32_MAX - 1: a
 * "must resolve to an Object type" error per item) rather than
 * GQL_TYPE_AUTO, which would read the C struct as JSON for __typename. */
static inline uint32_t list_item_type(const plan_field *pf,
                                      const exec_resolver *r) {
  return r->item_type == GQL_TYPE_AUTO && !pf->named_object && !pf->resolve_type
             ? GQL_TYPE_AUTO - 1
             : r->item_type;
}

/* The hooks' clock (h->now set): inline when it is the time-stamp
 * counter. */
static inline uint64_t hooks_now(const gql_exec_hooks *h) {
#ifdef GQL_EXEC_HAVE_TSC
  if (GQL_LIKELY(h->now_tsc))
    return __rdtsc();
#endif
  return h->now(h->pub.ctx);
}

/* A synchronous completion of field `pf` at field frame `fr` that the hooks
 * stamp: its time, or (gql_hooks.last_stamps, see items_last) none when a
 * later item of the list that the field's object is an item of will call
 * the same field: that call's completion comes later, and the stamp is
 * owed until then. */
static inline void stamp_completion(exec_ctx *ctx, const gql_exec_hooks *h,
                                    const plan_field *pf,
                                    const path_frame *fr) {
  const path_frame *it = fr->parent;
  if (it && !it->key && it->index < it->last) {
    h->stamps[pf->ordinal] = GQL_STAMP_OWED;
    ctx->owed = true;
    return;
  }
  h->stamps[pf->ordinal] = hooks_now(h);
}

/* The tracer's cached answer: this call of a traced execution needs no
 * hook (a collapsed sibling, a leaf). After an abort ctx->hooks has no
 * answers (see gql_exec_resolve_field_hooked): no abort flag to read per call.
 */
static inline bool hook_free(const exec_ctx *ctx, const gql_exec_hooks *h,
                             const plan_field *pf) {
  (void)ctx;
  return pf->ordinal < h->ncalls && !h->calls[pf->ordinal];
}

/* The same, for ctx->hooks, which has an answer for every planned field
 * (see answer_early): its answer, read without a bound check. */
static inline unsigned hooks_answer(const gql_exec_hooks *h,
                                    const plan_field *pf) {
  return h->calls[pf->ordinal];
}

/* Or it needs a clock read at its completion only (GQL_HOOK_STAMP). */
static inline bool stamp_only(const exec_ctx *ctx, const gql_exec_hooks *h,
                              const plan_field *pf) {
  return pf->ordinal < h->ncalls && h->calls[pf->ordinal] == GQL_HOOK_STAMP &&
         !ctx->aborted && h->stamps && h->now;
}

/* The info a resolver or resolve_type of this output is given. */
static inline const gql_resolve_info *out_info(const gql_out *o) {
  return o->info ? o->info : &o->own;
}

/* Sets every member but own.args and own.trace, which only
 * gql_exec_resolve_field's slow path reads (this runs for every field, so it
 * does not clear the whole struct). List items set `info` to the field's. */
static inline void out_init(gql_out *o, exec_ctx *ctx, const plan_field *pf,
                            gql_type_ref type, uint8_t dleaf,
                            const path_frame *path, rnode *node) {
  o->own.ctx = ctx;
  o->own.pf = pf;
  o->own.path = path;
  o->own.error = NULL;
  o->info = NULL;
  o->type = type;
  o->node = node;
  o->mark = ctx->out->len;
  o->written = false;
  o->prop = false;
  o->pending_root = false;
  o->pended = false;
  o->field_level = false;
  o->dleaf = node ? LEAF_NONE : dleaf;
}

/* `sep` ('{' or ',') and the field's "key": with one capacity check, and
 * for a key under 32 bytes one or two 16-byte copies. */
static inline void put_key(gql_buf *b, char sep, const plan_field *pf) {
  if (GQL_LIKELY(pf->key_short && b->cap - b->len >= 32)) {
    char *d = b->data + b->len;
    memcpy(d, pf->key_pad + 1, 16);
    if (pf->key_short > 16)
      memcpy(d + 16, pf->key_pad + 17, 16);
    d[0] = sep;
    b->len += pf->key_short;
    return;
  }
  gql_str kj = pf->key_json;
  if (GQL_UNLIKELY(b->cap - b->len < kj.len + 1) &&
      !gql_buf_reserve(b, kj.len + 1))
    return;
  b->data[b->len++] = sep;
  gql_buf_put(b, kj.ptr, kj.len);
}

/* A list item's opening and its first field's key: `open` ('[' or ','),
 * '{' and "key": in one or two 16-byte copies. */
static inline void put_item_key(gql_buf *b, char open, const plan_field *pf) {
  if (GQL_LIKELY(pf->key_short && b->cap - b->len >= 32)) {
    char *d = b->data + b->len;
    memcpy(d, pf->key_pad, 16);
    if (pf->key_short >= 16)
      memcpy(d + 16, pf->key_pad + 16, 16);
    d[0] = open;
    d[1] = '{';
    b->len += pf->key_short + 1u;
    return;
  }
  gql_buf_putc(b, open);
  put_key(b, '{', pf);
}

/* A member field (plan_field.member) written straight into b, with no
 * resolver call and no output set-up: true when written; false (nothing
 * written) when the value needs the general path (a null, an Int out of
 * range, a non-finite Float, an enum index out of range). */
static inline __attribute__((always_inline)) bool
member_write(gql_buf *b, uint8_t kind, const plan_field *pf, const char *p) {
  switch (kind) {
  case MEMBER_INT32:
    gql_json_write_int(b, ld_i32(p));
    return true;
  case MEMBER_INT64_INT: {
    int64_t v = ld_i64(p);
    if ((uint64_t)v + 2147483648u > UINT32_MAX) /* outside Int's range */
      return false;
    gql_json_write_int(b, v);
    return true;
  }
  case MEMBER_INT64:
    gql_json_write_int(b, ld_i64(p));
    return true;
  case MEMBER_DOUBLE: {
    double v = ld_f64(p);
    if (!isfinite(v))
      return false;
    gql_json_write_double(b, v);
    return true;
  }
  case MEMBER_BOOL:
    if (ld_bool(p))
      gql_buf_put(b, "true", 4);
    else
      gql_buf_put(b, "false", 5);
    return true;
  case MEMBER_STR: {
    gql_str v = ld_str(p);
    if (!v.ptr)
      return false;
    gql_json_write_string(b, v);
    return true;
  }
  case MEMBER_CSTR: {
    const char *v = ld_cstr(p);
    if (!v)
      return false;
    gql_json_write_string(b, (gql_str){v, strlen(v)});
    return true;
  }
  case MEMBER_ENUM: {
    uint8_t v = (uint8_t)*p;
    const gql_type *e = pf->named;
    if (v >= e->nvalues)
      return false;
    gql_json_write_plain(b, e->values[v].name);
    return true;
  }
  default: /* MEMBER_NONE: callers test it first */
    GQL_UNREACHABLE();
  }
}

/* The output the fields of an object share (see field_direct), with its
 * path frame `fr`: set once per object, or once per list of objects. */
static inline void object_out_init(gql_out *o, exec_ctx *ctx, path_frame *fr) {
  o->own.ctx = ctx;
  o->own.path = fr;
  o->info = NULL;
  o->node = NULL;
  o->pending_root = false;
  o->pended = false;
  o->field_level = false;
}

/* enum_items_put value by value, with a capacity check each. */
static __attribute__((noinline, unused)) bool
enum_items_slow(gql_buf *b, const plan_field *pf, const uint8_t *items,
                size_t count) {
  const gql_type *e = pf->named;
  size_t mark = b->len;
  for (size_t i = 0; i < count; i++) {
    uint8_t v = items[i];
    if (v >= e->nvalues) {
      b->len = mark;
      return false;
    }
    gql_buf_putc(b, i ? ',' : '[');
    gql_json_write_plain(b, e->values[v].name);
  }
  if (!count)
    gql_buf_putc(b, '[');
  gql_buf_putc(b, ']');
  return true;
}

/* [...] for enum indices items[0..count) of enum pf->named: true when
 * written; false (nothing written) when an index is out of range. A short
 * list of short names (exec_type.quoted) takes one capacity check and a
 * copy of each value's slot, with no call. */
static inline __attribute__((always_inline)) bool
enum_items_put(gql_buf *b, const plan_field *pf, const uint8_t *items,
               size_t count) {
  const char *q = ((const exec_type *)pf->named->exec_data)->quoted;
  size_t need = count * ENUM_SLOT + 2;
  if (GQL_UNLIKELY(!q || count > 64 ||
                   (b->cap - b->len < need && !gql_buf_reserve(b, need))))
    return enum_items_slow(b, pf, items, count);
  uint32_t nvalues = pf->named->nvalues;
  char *start = b->data + b->len, *d = start;
  for (size_t i = 0; i < count; i++) {
    uint8_t v = items[i];
    if (GQL_UNLIKELY(v >= nvalues))
      return false; /* b->len has not moved */
    const char *slot = q + (size_t)v * ENUM_SLOT;
    uint8_t n = (uint8_t)slot[ENUM_SLOT - 1];
    memcpy(d, slot, 16);
    if (n > 16)
      memcpy(d + 16, slot + 16, 16);
    d += n;
  }
  if (count)
    *start = '[';
  else
    *d++ = '[';
  *d++ = ']';
  b->len = (size_t)(d - b->data);
  return true;
}

/* path_frame.last for the items of a list of `count` items, in an
 * execution that asks for last stamps (ctx->last_stamps, tested by the
 * callers first: an argument they computed before it would cost the
 * untraced lists): its last index when the items are non-null and have
 * one plan (`one_plan_non_null`: in a synchronous execution each item then
 * calls every field an earlier one called, unless an error ends the list),
 * else 0. */
static inline int64_t items_last(bool one_plan_non_null, size_t count) {
  return one_plan_non_null ? (int64_t)count - 1 : 0;
}

static inline const plan_set *sub_plan(const plan_field *pf, uint32_t type) {
  if (pf->sub_span) {
    uint32_t k = type - pf->sub_lo;
    return k < pf->sub_span ? pf->sub_table[k] : NULL;
  }
  for (uint32_t i = 0; i < pf->nsubs; i++)
    if (pf->sub_types[i] == type)
      return pf->subs[i];
  return NULL;
}

#endif
