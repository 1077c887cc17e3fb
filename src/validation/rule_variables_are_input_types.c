/* VariablesAreInputTypesRule: placeholder until the rule lands. */
#include "validation.h"

const gql_vrule gql_rule_VariablesAreInputTypesRule = {
    "VariablesAreInputTypesRule", 0, NULL, NULL, NULL};
