/* ProvidedRequiredArgumentsRule: placeholder until the rule lands. */
#include "validation.h"

const gql_vrule gql_rule_ProvidedRequiredArgumentsRule = {
    "ProvidedRequiredArgumentsRule", 0, NULL, NULL, NULL};
