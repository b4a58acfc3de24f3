import { runCli } from "@routerd/cli";
import { traceStage } from "@routerd/resource";
import { PROGRAM } from "./commands/index.js";

// A closed pipe (`routerd plan | head`) is the reader's choice, not an error worth a stack trace.
process.stdout.on("error", (err: NodeJS.ErrnoException) => {
  if (err.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw err;
});

traceStage("modules loaded");
const io = { out: (s: string) => process.stdout.write(s + "\n"), err: (s: string) => process.stderr.write(s + "\n") };
runCli(PROGRAM, process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`routerd: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
