// The registry of the mock's switches: faults by area, and the behaviours of
// the real service family that the suite must tolerate. Each is data: rules it
// changes and transforms of answers (src/mock/core/scenarios.ts).
import type { Switch } from "../core/scenarios.ts";
import { AUTHORIZATION_FAULTS } from "./authorization.ts";
import { RESOURCE_SERVER_FAULTS } from "./resource-server.ts";
import { RESOURCE_FAULTS } from "./resources.ts";
import { SEQUENCE_FAULTS } from "./sequences.ts";
import { TOKEN_ENDPOINT_FAULTS } from "./token-endpoint.ts";
import { TOKEN_STATE_FAULTS } from "./token-states.ts";
import { TOLERATED } from "./tolerated.ts";

export const FAULTS: readonly Switch[] = [
  ...TOKEN_ENDPOINT_FAULTS,
  ...AUTHORIZATION_FAULTS,
  ...RESOURCE_SERVER_FAULTS,
  ...RESOURCE_FAULTS,
  ...TOKEN_STATE_FAULTS,
  ...SEQUENCE_FAULTS,
];

export { TOLERATED };

/** Every switch the mock knows, faults first. */
export const SWITCHES: readonly Switch[] = [...FAULTS, ...TOLERATED];

/** The switches of a comma-separated list; throws naming an unknown one and the known ones. */
export function switchesNamed(list: string, among: readonly Switch[] = SWITCHES): Switch[] {
  return list
    .split(",")
    .map((n) => n.trim())
    .filter(Boolean)
    .map((n) => {
      const s = among.find((x) => x.name === n);
      if (!s) throw new Error(`unknown switch ${n}; the switches are: ${among.map((x) => x.name).join(", ")}`);
      return s;
    });
}
