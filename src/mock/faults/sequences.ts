// Faults of the state behind the answers (issue 32): a list that does not follow the calls
// before it (only a sequence shows it), an XML body read otherwise than its JSON twin.
import type { Switch } from "../core/scenarios.ts";
import { fault } from "./transforms.ts";

export const SEQUENCE_FAULTS: readonly Switch[] = [
  fault({
    name: "stale-list",
    breaks: ["SVC-MODEL"],
    says: /shortest failing sequence .*; at its end GET [^:]*List: .*it (misses|still shows deleted)/,
    what: "a list keeps what it showed the first time: objects created after it never show, deleted ones stay",
    rules: { listFollowsWrites: false },
  }),
  fault({
    name: "xml-booleans-ignored",
    breaks: ["SVC-FORMATS-WRITE"],
    says: /written as JSON it reads true, written as XML false|written as JSON it reads false, written as XML true/,
    what: "an XML body's true/false values are dropped and take their defaults; JSON bodies are read whole",
    rules: { xmlReadsBooleans: false },
  }),
];
