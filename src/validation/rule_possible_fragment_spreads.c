/* PossibleFragmentSpreadsRule: placeholder until the rule lands. */
#include "validation.h"

const gql_vrule gql_rule_PossibleFragmentSpreadsRule = {
    "PossibleFragmentSpreadsRule", 0, NULL, NULL, NULL};
