/* LoneAnonymousOperationRule: placeholder until the rule lands. */
#include "validation.h"

const gql_vrule gql_rule_LoneAnonymousOperationRule = {
    "LoneAnonymousOperationRule", 0, NULL, NULL, NULL};
