/* KnownDirectivesRule: placeholder until the rule lands. */
#include "validation.h"

const gql_vrule gql_rule_KnownDirectivesRule = {"KnownDirectivesRule", 0, NULL,
                                                NULL, NULL};
