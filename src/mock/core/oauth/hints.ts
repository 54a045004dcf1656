// What a refusal of the authorization server tells the developer pointing a
// client at the mock: the value it expects, and the setting that changes it.

/** An invalid_scope's description: the one scope, and how to serve another. */
export const scopeHint = (scope: string) =>
  `the only scope is ${scope}; start the mock with --scope <value> (BAWA_SCOPE) to serve another`;
