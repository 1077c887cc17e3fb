/* UniqueFragmentNamesRule: placeholder until the rule lands. */
#include "validation.h"

const gql_vrule gql_rule_UniqueFragmentNamesRule = {"UniqueFragmentNamesRule",
                                                    0, NULL, NULL, NULL};
