/*
 * Looking things up in a loaded supergraph: types and fields by name,
 * subgraphs, a type's and a field's entry in one subgraph, and the type
 * relations the planner and the field-set reader ask about. Below the
 * reading (supergraph.c), the field sets (fieldset.c) and the API schema
 * (api_schema.c), which all ask these.
 */
#include "gateway.h"

const gql_gw_type *gql_supergraph_type(const gql_supergraph *sg, gql_str name) {
  uint32_t i;
  return gql_strmap_get(&sg->type_index, name, &i) ? &sg->types[i] : NULL;
}

const gql_gw_field *gql_supergraph_field(const gql_gw_type *t, gql_str name) {
  for (uint32_t i = 0; i < t->nfields; i++)
    if (gql_str_eq(t->fields[i].name, name))
      return &t->fields[i];
  return NULL;
}

const gql_gw_field *gql_supergraph_field_of(const gql_supergraph *sg,
                                            const gql_gw_type *t,
                                            gql_str name) {
  if (t->nfields <= 16)
    return gql_supergraph_field(t, name);
  char buf[256];
  if (t->name.len + 1 + name.len > sizeof buf)
    return gql_supergraph_field(t, name);
  memcpy(buf, t->name.ptr, t->name.len);
  buf[t->name.len] = '.';
  memcpy(buf + t->name.len + 1, name.ptr, name.len);
  uint32_t i;
  if (!gql_strmap_get(&sg->field_index,
                      (gql_str){buf, t->name.len + 1 + name.len}, &i))
    return NULL;
  return sg->field_list[i];
}

int64_t gql_supergraph_graph_by_name(const gql_supergraph *sg, gql_str name) {
  for (uint32_t i = 0; i < sg->ngraphs; i++)
    if (gql_str_eq(sg->graphs[i].name, name))
      return i;
  return -1;
}

const gql_gw_type_graph *gql_supergraph_type_graph(const gql_gw_type *t,
                                                   uint32_t graph) {
  if (t->graph_slot) {
    uint16_t s = t->graph_slot[graph];
    return s ? &t->graphs[s - 1] : NULL;
  }
  for (uint32_t i = 0; i < t->ngraphs; i++)
    if (t->graphs[i].graph == graph)
      return &t->graphs[i];
  return NULL;
}

/* The entry of a field without @join__field, in any subgraph of its type:
 * resolvable, no field sets, the supergraph's type. */
static const gql_gw_field_graph PLAIN_FIELD = {.label = -1};

const gql_gw_field_graph *gql_supergraph_field_graph(const gql_gw_type *t,
                                                     const gql_gw_field *f,
                                                     uint32_t graph) {
  if (!gql_supergraph_type_graph(t, graph))
    return NULL;
  if (f->all_graphs)
    return &PLAIN_FIELD;
  for (uint32_t i = 0; i < f->ngraphs; i++)
    if (f->graphs[i].graph == graph)
      return &f->graphs[i];
  return NULL;
}

bool gql_supergraph_satisfies(const gql_gw_type *t, const gql_gw_type *cond) {
  if (t == cond)
    return true;
  if (cond->kind == GQL_AST_UNION_TYPE_DEFINITION) {
    for (uint32_t i = 0; i < cond->npossible; i++)
      if (cond->possible[i] == t)
        return true;
    return false;
  }
  for (uint32_t i = 0; i < t->ninterfaces; i++)
    if (t->interfaces[i] == cond)
      return true;
  return false;
}

bool gql_supergraph_overlap(const gql_gw_type *a, const gql_gw_type *b) {
  for (uint32_t i = 0; i < a->npossible; i++)
    if (gql_supergraph_satisfies(a->possible[i], b))
      return true;
  return false;
}

bool gql_supergraph_resolves(const gql_gw_type *t, const gql_gw_field *f,
                             uint32_t graph) {
  const gql_gw_field_graph *fg = gql_supergraph_field_graph(t, f, graph);
  return fg && !fg->external && !fg->used_overridden &&
         (fg->label < 0 || !fg->label_on);
}

bool gql_supergraph_enum_has(const gql_gw_type *t, gql_str value) {
  for (uint32_t i = 0; i < t->napi_values; i++)
    if (gql_str_eq(t->api_values[i], value))
      return true;
  return false;
}
