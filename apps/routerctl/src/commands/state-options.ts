import type { OptionSpec } from "@routerd/cli";

/** What get and describe read: the state dir (status, ledger, generations, events) and serve's socket. */
export const STATE_OPTIONS: Record<string, OptionSpec> = {
  "state-dir": { type: "string", default: "/var/lib/routerd", valueName: "DIR", description: "routerd's state directory (status, ledger, generations, events)", complete: "dir" },
  "run-dir": { type: "string", default: "/run/routerd", valueName: "DIR", description: "where daemon sockets live (routerd serve's status fields)", complete: "dir" },
  config: { type: "string", short: "c", valueName: "FILE", description: "read specs from this config instead of the current generation", complete: "file" },
  output: { type: "string", short: "o", valueName: "FORMAT", description: "table, json or yaml", complete: ["table", "json", "yaml"] },
  json: { type: "boolean", description: "the same as -o json" },
};
