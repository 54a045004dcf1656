import { CONTRACT_PATH, loadContract, type OpenApiDocument, SchemaSet } from "./contract.ts";
import { buildResourceModel, type ResourceModel } from "./resources.ts";
import { XmlMapping } from "./xml.ts";

export * from "./bounds.ts";
export * from "./contract.ts";
export * from "./numbers.ts";
export * from "./resources.ts";
export * from "./xml.ts";

/** The contract compiled for use: validators for answers and for request bodies, and the XML mapping. */
export interface CompiledContract {
  doc: OpenApiDocument;
  /** Validates without touching the data (answers, stored objects). */
  answers: SchemaSet;
  /** Validates request bodies and fills in the contract's defaults. */
  requests: SchemaSet;
  xml: XmlMapping;
  /** The resources the contract declares, by the description's result kinds (resources.ts). */
  resources: ResourceModel;
}

/**
 * Loads the contract. With `eager` (the default) every validator is compiled
 * now, so a broken contract fails here; the mock passes false and calls
 * `warmContract` once its port is open, to start answering sooner.
 */
export function compileContract(path: string = CONTRACT_PATH, options: { eager?: boolean } = {}): CompiledContract {
  const doc = loadContract(path);
  const contract = {
    doc,
    answers: new SchemaSet(doc),
    requests: new SchemaSet(doc, { useDefaults: true, exactIntegers: true }),
    xml: new XmlMapping(doc),
    resources: buildResourceModel(doc),
  };
  if (options.eager ?? true) warmContract(contract);
  return contract;
}

let inUse: CompiledContract | undefined;

/**
 * The contract in use (CONTRACT_PATH: the project's, or a team's in BAWA_CONTRACT), compiled once
 * per process, eagerly. A mock built without a contract of its own takes this one: a process that
 * builds many (the tests: a mock per test, the proxy's fault tests one per fault) compiled every
 * validator again each time, about a third of a CPU-second. Nothing changes a compiled contract
 * (the fault matrix's mocks have always shared one).
 */
export function contractInUse(): CompiledContract {
  inUse ??= compileContract(CONTRACT_PATH);
  return inUse;
}

/** Compiles every validator of the contract (each is compiled once; later calls are cheap). */
export function warmContract(contract: CompiledContract): void {
  for (const step of warmSteps(contract)) step();
}

/** The compilations warmContract does, one validator each, for a caller that spreads them over time. */
export function warmSteps(contract: CompiledContract): Array<() => void> {
  return Object.keys(contract.doc.components.schemas).flatMap((name) => [
    () => void contract.answers.validator(name),
    () => void contract.requests.validator(name),
  ]);
}
