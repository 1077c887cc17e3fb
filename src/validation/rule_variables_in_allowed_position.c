/* VariablesInAllowedPositionRule: placeholder until the rule lands. */
#include "validation.h"

const gql_vrule gql_rule_VariablesInAllowedPositionRule = {
    "VariablesInAllowedPositionRule", 0, NULL, NULL, NULL};
