/* NoFragmentCyclesRule: placeholder until the rule lands. */
#include "validation.h"

const gql_vrule gql_rule_NoFragmentCyclesRule = {"NoFragmentCyclesRule", 0,
                                                 NULL, NULL, NULL};
