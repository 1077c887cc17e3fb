/* FieldsOnCorrectTypeRule: placeholder until the rule lands. */
#include "validation.h"

const gql_vrule gql_rule_FieldsOnCorrectTypeRule = {"FieldsOnCorrectTypeRule",
                                                    0, NULL, NULL, NULL};
