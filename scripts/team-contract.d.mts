/** Writes the team's contract and seed folder into `out`; returns the contract's path. `supplier: false` adds Product alone. */
export function writeTeamContract(options?: { out?: string; supplier?: boolean }): string;
