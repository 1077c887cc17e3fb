/* UniqueDirectivesPerLocationRule: placeholder until the rule lands. */
#include "validation.h"

const gql_vrule gql_rule_UniqueDirectivesPerLocationRule = {
    "UniqueDirectivesPerLocationRule", 0, NULL, NULL, NULL};
