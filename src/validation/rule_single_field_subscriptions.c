/* SingleFieldSubscriptionsRule: placeholder until the rule lands. */
#include "validation.h"

const gql_vrule gql_rule_SingleFieldSubscriptionsRule = {
    "SingleFieldSubscriptionsRule", 0, NULL, NULL, NULL};
