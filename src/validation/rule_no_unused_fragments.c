/* NoUnusedFragmentsRule: placeholder until the rule lands. */
#include "validation.h"

const gql_vrule gql_rule_NoUnusedFragmentsRule = {"NoUnusedFragmentsRule", 0,
                                                  NULL, NULL, NULL};
