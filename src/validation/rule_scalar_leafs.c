/* ScalarLeafsRule: placeholder until the rule lands. */
#include "validation.h"

const gql_vrule gql_rule_ScalarLeafsRule = {"ScalarLeafsRule", 0, NULL, NULL,
                                            NULL};
