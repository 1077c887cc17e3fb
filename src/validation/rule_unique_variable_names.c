/* UniqueVariableNamesRule: placeholder until the rule lands. */
#include "validation.h"

const gql_vrule gql_rule_UniqueVariableNamesRule = {"UniqueVariableNamesRule",
                                                    0, NULL, NULL, NULL};
