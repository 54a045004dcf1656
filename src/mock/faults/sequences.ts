// Faults only a sequence of calls shows (issue 32): each answer alone fits the
// contract; the state behind them does not follow the calls before.
import type { Switch } from "../core/scenarios.ts";
import { fault } from "./transforms.ts";

export const SEQUENCE_FAULTS: readonly Switch[] = [
  fault({
    name: "stale-list",
    breaks: ["SVC-MODEL"],
    says: /shortest failing sequence[\s\S]*it (misses|still shows deleted)/,
    what: "a list keeps what it showed the first time: objects created after it never show, deleted ones stay",
    rules: { listFollowsWrites: false },
  }),
];
