/* MaxIntrospectionDepthRule: placeholder until the rule lands. */
#include "validation.h"

const gql_vrule gql_rule_MaxIntrospectionDepthRule = {
    "MaxIntrospectionDepthRule", 0, NULL, NULL, NULL};
