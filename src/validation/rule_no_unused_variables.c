/* NoUnusedVariablesRule: placeholder until the rule lands. */
#include "validation.h"

const gql_vrule gql_rule_NoUnusedVariablesRule = {"NoUnusedVariablesRule", 0,
                                                  NULL, NULL, NULL};
