import { readLedger } from "@routerd/resource";
import type { Command } from "@routerd/cli";
import { COMMON_OPTIONS, reportError } from "./common.js";

export const ledgerCommand: Command = {
  name: "ledger",
  summary: "print the ownership ledger: what routerd created or adopted",
  usage: "ledger [--json] [--state-dir DIR]",
  description: "Each entry: ownership (created or adopted), state (present or pending), artifact kind and name, and\nthe resources that own it. Only what is in the ledger is ever deleted by routerd.",
  examples: [{ command: "routerd ledger --json | jq '.entries[] | select(.kind == \"nft.table\")'", description: "the nft tables routerd owns" }],
  seeAlso: ["routerd adopt", "routerctl describe", "docs/ownership.md"],
  options: { json: { type: "boolean", description: "the ledger document as JSON" }, ...COMMON_OPTIONS },
  async run(v, io) {
    try {
      const ledger = readLedger(String(v["state-dir"]));
      if (v.json) {
        io.out(JSON.stringify(ledger.toDocument(), null, 2));
        return 0;
      }
      const entries = ledger.list();
      if (!entries.length) io.out("The ledger is empty.");
      for (const e of entries) io.out(`${e.ownership.padEnd(8)} ${e.state.padEnd(8)} ${e.kind} ${e.name}  ← ${e.owners.join(", ")}`);
      return 0;
    } catch (err) {
      return reportError(err, io, Boolean(v.json));
    }
  },
};
