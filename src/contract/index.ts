import { CONTRACT_PATH, loadContract, type OpenApiDocument, SchemaSet } from "./contract.ts";
import { XmlMapping } from "./xml.ts";

export * from "./contract.ts";
export * from "./xml.ts";

/** The contract compiled for use: validators for answers and for request bodies, and the XML mapping. */
export interface CompiledContract {
  doc: OpenApiDocument;
  /** Validates without touching the data (answers, stored objects). */
  answers: SchemaSet;
  /** Validates request bodies and fills in the contract's defaults. */
  requests: SchemaSet;
  xml: XmlMapping;
}

export function compileContract(path: string = CONTRACT_PATH): CompiledContract {
  const doc = loadContract(path);
  const contract = {
    doc,
    answers: new SchemaSet(doc),
    requests: new SchemaSet(doc, { useDefaults: true }),
    xml: new XmlMapping(doc),
  };
  // Compile every schema now, so a broken contract fails at start-up and not on a request.
  for (const name of Object.keys(doc.components.schemas)) {
    contract.answers.validator(name);
    contract.requests.validator(name);
  }
  return contract;
}
