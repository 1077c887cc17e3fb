/* KnownArgumentNamesRule: placeholder until the rule lands. */
#include "validation.h"

const gql_vrule gql_rule_KnownArgumentNamesRule = {"KnownArgumentNamesRule", 0,
                                                   NULL, NULL, NULL};
