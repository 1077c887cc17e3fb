/* KnownFragmentNamesRule: placeholder until the rule lands. */
#include "validation.h"

const gql_vrule gql_rule_KnownFragmentNamesRule = {"KnownFragmentNamesRule", 0,
                                                   NULL, NULL, NULL};
