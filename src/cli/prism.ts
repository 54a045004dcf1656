import type { Command } from "./bawa.ts";
export const prismCommand: Command = {
  summary: "run Prism's stateless contract mock of the same document",
  usage: "usage: bawa prism [options]",
  options: {},
  async run() {
    throw new Error("not yet");
  },
};
