/* FragmentsOnCompositeTypesRule: placeholder until the rule lands. */
#include "validation.h"

const gql_vrule gql_rule_FragmentsOnCompositeTypesRule = {
    "FragmentsOnCompositeTypesRule", 0, NULL, NULL, NULL};
