/* ExecutableDefinitionsRule: placeholder until the rule lands. */
#include "validation.h"

const gql_vrule gql_rule_ExecutableDefinitionsRule = {
    "ExecutableDefinitionsRule", 0, NULL, NULL, NULL};
