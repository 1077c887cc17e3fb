/* OverlappingFieldsCanBeMergedRule: placeholder until the rule lands. */
#include "validation.h"

const gql_vrule gql_rule_OverlappingFieldsCanBeMergedRule = {
    "OverlappingFieldsCanBeMergedRule", 0, NULL, NULL, NULL};
