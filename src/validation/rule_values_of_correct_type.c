/* ValuesOfCorrectTypeRule: placeholder until the rule lands. */
#include "validation.h"

const gql_vrule gql_rule_ValuesOfCorrectTypeRule = {"ValuesOfCorrectTypeRule",
                                                    0, NULL, NULL, NULL};
