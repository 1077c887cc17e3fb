/* NoUndefinedVariablesRule: placeholder until the rule lands. */
#include "validation.h"

const gql_vrule gql_rule_NoUndefinedVariablesRule = {"NoUndefinedVariablesRule",
                                                     0, NULL, NULL, NULL};
