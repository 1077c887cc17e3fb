/* The executable-document rules in graphql-js 16's specifiedRules order
 * (MaxIntrospectionDepthRule, its "recommended" rule, last), with graphql-js
 * 17's four rules about @defer and @stream where 17 places them, after
 * UniqueDirectivesPerLocationRule (they report nothing on a document
 * without those directives, so 16's answers stay as they were). X(NAME)
 * where the rule's symbol is gql_rule_NAME and its name is "NAME";
 * GQL_VALIDATION_RULES_WITH(X, ARG) calls X(NAME, ARG). */
#ifndef GQL_VALIDATION_RULES_LIST_H
#define GQL_VALIDATION_RULES_LIST_H

#define GQL_VALIDATION_RULES(X) GQL_VALIDATION_RULES_WITH(GQL_VRULES_ONE_, X)
#define GQL_VRULES_ONE_(name, X) X(name)
#define GQL_VALIDATION_RULES_WITH(X, A)                                        \
  X(ExecutableDefinitionsRule, A)                                              \
  X(UniqueOperationNamesRule, A)                                               \
  X(LoneAnonymousOperationRule, A)                                             \
  X(SingleFieldSubscriptionsRule, A)                                           \
  X(KnownTypeNamesRule, A)                                                     \
  X(FragmentsOnCompositeTypesRule, A)                                          \
  X(VariablesAreInputTypesRule, A)                                             \
  X(ScalarLeafsRule, A)                                                        \
  X(FieldsOnCorrectTypeRule, A)                                                \
  X(UniqueFragmentNamesRule, A)                                                \
  X(KnownFragmentNamesRule, A)                                                 \
  X(NoUnusedFragmentsRule, A)                                                  \
  X(PossibleFragmentSpreadsRule, A)                                            \
  X(NoFragmentCyclesRule, A)                                                   \
  X(UniqueVariableNamesRule, A)                                                \
  X(NoUndefinedVariablesRule, A)                                               \
  X(NoUnusedVariablesRule, A)                                                  \
  X(KnownDirectivesRule, A)                                                    \
  X(UniqueDirectivesPerLocationRule, A)                                        \
  X(DeferStreamDirectiveOnRootFieldRule, A)                                    \
  X(DeferStreamDirectiveOnValidOperationsRule, A)                              \
  X(DeferStreamDirectiveLabelRule, A)                                          \
  X(StreamDirectiveOnListFieldRule, A)                                         \
  X(KnownArgumentNamesRule, A)                                                 \
  X(UniqueArgumentNamesRule, A)                                                \
  X(ValuesOfCorrectTypeRule, A)                                                \
  X(ProvidedRequiredArgumentsRule, A)                                          \
  X(VariablesInAllowedPositionRule, A)                                         \
  X(OverlappingFieldsCanBeMergedRule, A)                                       \
  X(UniqueInputFieldNamesRule, A)                                              \
  X(MaxIntrospectionDepthRule, A)

#endif
