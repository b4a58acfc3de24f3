// routerctl: ask routerd and its daemons what they are doing. Commands live in ./commands (one module each).
import { runCli } from "@routerd/cli";
import { PROGRAM } from "./commands/index.js";

const io = { out: (s: string) => process.stdout.write(s + "\n"), err: (s: string) => process.stderr.write(s + "\n") };
runCli(PROGRAM, process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`routerctl: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
