/*
 * A plan as readable text, in the style of Apollo's QueryPlan printer:
 * waves as Sequence, the requests of a wave as Parallel, entity fetches as
 * Flatten nodes with their representation and selection.
 */
#include "plan_internal.h"
#include "json/json.h"

/* ---------------------------------------------------------------- print */

static void indent(gql_buf *out, int n) {
  for (int i = 0; i < n; i++)
    gql_buf_puts(out, "  ");
}

static void print_path(gql_buf *out, const gql_gw_fetch *f) {
  for (uint32_t i = 0; i < f->path_len; i++) {
    if (i)
      gql_buf_putc(out, '.');
    gql_buf_put_str(out, f->path[i]);
  }
}

static void print_entity(gql_buf *out, const gql_gw_fetch *f, int d) {
  indent(out, d);
  gql_buf_puts(out, "Flatten(path: \"");
  print_path(out, f);
  gql_buf_puts(out, "\") {\n");
  indent(out, d + 1);
  gql_buf_puts(out, "{ ... on ");
  gql_buf_put_str(out, f->type_name);
  gql_buf_putc(out, ' ');
  gw_print_sels(out, f->requires, true);
  gql_buf_puts(out, " } =>\n");
  indent(out, d + 1);
  gql_buf_puts(out, "{ ... on ");
  gql_buf_put_str(out, f->type_name);
  gql_buf_putc(out, ' ');
  gw_print_sels(out, &f->root, true);
  gql_buf_puts(out, " }\n");
  indent(out, d);
  gql_buf_puts(out, "},\n");
}

static void print_batch(gql_buf *out, const gql_gw_plan *plan,
                        const gql_gw_batch *b, int d) {
  const gql_gw_graph *g = &plan->sg->graphs[b->graph];
  indent(out, d);
  gql_buf_puts(out, "Fetch(service: \"");
  gql_buf_put_str(out, g->name);
  gql_buf_putc(out, '"');
  if (b->nfetches > 1)
    gql_buf_printf(out, ", batch: %u", b->nfetches);
  gql_buf_puts(out, ") {\n");
  for (uint32_t i = 0; i < b->nfetches; i++) {
    const gql_gw_fetch *f = b->fetches[i];
    if (f->parent) {
      print_entity(out, f, d + 1);
      continue;
    }
    indent(out, d + 1);
    gw_print_sels(out, &f->root, true);
    gql_buf_putc(out, '\n');
  }
  indent(out, d);
  gql_buf_puts(out, "},\n");
}

/* Waves from..to (1-based, inclusive) at depth d: a Sequence of them
 * when more than one, each a Parallel of its requests when more than one. */
static void print_waves(gql_buf *out, const gql_gw_plan *plan, uint32_t from,
                        uint32_t to, int d, bool seq) {
  if (seq) {
    indent(out, d++);
    gql_buf_puts(out, "Sequence {\n");
  }
  for (uint32_t lv = from; lv <= to; lv++) {
    uint32_t n = 0;
    for (uint32_t j = 0; j < plan->nbatches; j++)
      n += plan->batches[j].level == lv;
    if (n == 0)
      continue;
    if (n > 1) {
      indent(out, d++);
      gql_buf_puts(out, "Parallel {\n");
    }
    for (uint32_t j = 0; j < plan->nbatches; j++)
      if (plan->batches[j].level == lv)
        print_batch(out, plan, &plan->batches[j], d);
    if (n > 1) {
      indent(out, --d);
      gql_buf_puts(out, "},\n");
    }
  }
  if (seq) {
    indent(out, --d);
    gql_buf_puts(out, "},\n");
  }
}

/* The waves from..to that have requests. */
static uint32_t waves(const gql_gw_plan *plan, uint32_t from, uint32_t to) {
  uint32_t n = 0;
  for (uint32_t lv = from; lv <= to; lv++)
    for (uint32_t j = 0; j < plan->nbatches; j++)
      if (plan->batches[j].level == lv) {
        n++;
        break;
      }
  return n;
}

/* @defer: the waves of the initial result, then those after it, and the
 * deferred fragments (with the response key of the field whose objects
 * they are on, and their label). */
static void print_defer(const gql_gw_plan *plan, gql_buf *out) {
  indent(out, 1);
  gql_buf_puts(out, "Defer {\n");
  indent(out, 2);
  gql_buf_puts(out, "Primary {\n");
  print_waves(out, plan, 1, plan->primary_levels, 3, plan->primary_levels > 1);
  indent(out, 2);
  gql_buf_puts(out, "}, [\n");
  for (uint32_t i = 0; i < plan->ndefers; i++) {
    const gql_gw_defer *df = plan->defers[i];
    indent(out, 3);
    gql_buf_printf(out, "Deferred(id: %u", df->index);
    if (df->parent)
      gql_buf_printf(out, ", after: %u", df->parent->index);
    gql_buf_puts(out, ", at: \"");
    if (df->at != &plan->client)
      gql_buf_put_str(out, df->at->key);
    gql_buf_putc(out, '"');
    if (df->label.ptr) {
      gql_buf_puts(out, ", label: ");
      gql_json_write_string(out, df->label);
    }
    gql_buf_puts(out, "),\n");
  }
  indent(out, 2);
  gql_buf_puts(out, "], Deferred {\n");
  print_waves(out, plan, plan->primary_levels + 1, plan->nlevels, 3,
              waves(plan, plan->primary_levels + 1, plan->nlevels) > 1);
  indent(out, 2);
  gql_buf_puts(out, "},\n");
  indent(out, 1);
  gql_buf_puts(out, "},\n");
}

void gql_gw_plan_print(const gql_gw_plan *plan, gql_buf *out) {
  gql_buf_puts(out, "QueryPlan {\n");
  if (plan->ndefers)
    print_defer(plan, out);
  else
    print_waves(out, plan, 1, plan->nlevels, 1, plan->nlevels > 1);
  gql_buf_puts(out, "}\n");
}
