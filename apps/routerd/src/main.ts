import { runCli } from "@routerd/cli";
import { traceStage } from "@routerd/resource";
import { COMMANDS } from "./commands/index.js";

const SUMMARY = "routerd: declarative router control plane. Describe the router in YAML; routerd validates it,\nshows a plan, changes the host to match, and removes only what it created or adopted.";

// A closed pipe (`routerd plan | head`) is the reader's choice, not an error worth a stack trace.
process.stdout.on("error", (err: NodeJS.ErrnoException) => {
  if (err.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw err;
});

traceStage("modules loaded");
const io = { out: (s: string) => process.stdout.write(s + "\n"), err: (s: string) => process.stderr.write(s + "\n") };
runCli("routerd", SUMMARY, COMMANDS, process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`routerd: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
