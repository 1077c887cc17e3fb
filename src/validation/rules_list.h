/* The executable-document rules in graphql-js 16's specifiedRules order
 * (MaxIntrospectionDepthRule, its "recommended" rule, last). X(NAME) where
 * the rule's symbol is gql_rule_NAME and its name is "NAME". */
#ifndef GQL_VALIDATION_RULES_LIST_H
#define GQL_VALIDATION_RULES_LIST_H

#define GQL_VALIDATION_RULES(X)                                                \
  X(ExecutableDefinitionsRule)                                                 \
  X(UniqueOperationNamesRule)                                                  \
  X(LoneAnonymousOperationRule)                                                \
  X(SingleFieldSubscriptionsRule)                                              \
  X(KnownTypeNamesRule)                                                        \
  X(FragmentsOnCompositeTypesRule)                                             \
  X(VariablesAreInputTypesRule)                                                \
  X(ScalarLeafsRule)                                                           \
  X(FieldsOnCorrectTypeRule)                                                   \
  X(UniqueFragmentNamesRule)                                                   \
  X(KnownFragmentNamesRule)                                                    \
  X(NoUnusedFragmentsRule)                                                     \
  X(PossibleFragmentSpreadsRule)                                               \
  X(NoFragmentCyclesRule)                                                      \
  X(UniqueVariableNamesRule)                                                   \
  X(NoUndefinedVariablesRule)                                                  \
  X(NoUnusedVariablesRule)                                                     \
  X(KnownDirectivesRule)                                                       \
  X(UniqueDirectivesPerLocationRule)                                           \
  X(KnownArgumentNamesRule)                                                    \
  X(UniqueArgumentNamesRule)                                                   \
  X(ValuesOfCorrectTypeRule)                                                   \
  X(ProvidedRequiredArgumentsRule)                                             \
  X(VariablesInAllowedPositionRule)                                            \
  X(OverlappingFieldsCanBeMergedRule)                                          \
  X(UniqueInputFieldNamesRule)                                                 \
  X(MaxIntrospectionDepthRule)

#endif
