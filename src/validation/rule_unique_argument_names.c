/* UniqueArgumentNamesRule: placeholder until the rule lands. */
#include "validation.h"

const gql_vrule gql_rule_UniqueArgumentNamesRule = {"UniqueArgumentNamesRule",
                                                    0, NULL, NULL, NULL};
