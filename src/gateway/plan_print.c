/*
 * A plan as readable text, in the style of Apollo's QueryPlan printer:
 * waves as Sequence, the requests of a wave as Parallel, entity fetches as
 * Flatten nodes with their representation and selection.
 */
#include "plan_internal.h"

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

void gql_gw_plan_print(const gql_gw_plan *plan, gql_buf *out) {
  gql_buf_puts(out, "QueryPlan {\n");
  bool seq = plan->nlevels > 1;
  int d = 1;
  if (seq) {
    indent(out, d++);
    gql_buf_puts(out, "Sequence {\n");
  }
  for (uint32_t lv = 1; lv <= plan->nlevels; lv++) {
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
  gql_buf_puts(out, "}\n");
}
