/* KnownTypeNamesRule: placeholder until the rule lands. */
#include "validation.h"

const gql_vrule gql_rule_KnownTypeNamesRule = {"KnownTypeNamesRule", 0, NULL,
                                               NULL, NULL};
