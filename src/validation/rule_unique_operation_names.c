/* UniqueOperationNamesRule: placeholder until the rule lands. */
#include "validation.h"

const gql_vrule gql_rule_UniqueOperationNamesRule = {"UniqueOperationNamesRule",
                                                     0, NULL, NULL, NULL};
