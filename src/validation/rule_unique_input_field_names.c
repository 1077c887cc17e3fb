/* UniqueInputFieldNamesRule: placeholder until the rule lands. */
#include "validation.h"

const gql_vrule gql_rule_UniqueInputFieldNamesRule = {
    "UniqueInputFieldNamesRule", 0, NULL, NULL, NULL};
