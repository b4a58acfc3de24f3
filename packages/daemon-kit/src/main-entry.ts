// What every daemon's main.ts does with its result: exit with the code once stopped, and never hang on
// something still pending after a stop (a name lookup, a child's pipe).
const EXIT_GRACE_MS = 2000;

/** Runs `main` and exits with its code (after EXIT_GRACE_MS at the latest); a throw prints the stack, exit 1. */
export function exitWith(program: string, main: Promise<number>): void {
  main.then(
    (code) => {
      process.exitCode = code;
      setTimeout(() => process.exit(code), EXIT_GRACE_MS).unref();
    },
    (err: unknown) => {
      process.stderr.write(`${program}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}

/** Whether a process with this pid exists (EPERM: it exists, owned by someone else); one implementation, the lock's. */
export { pidAlive } from "@routerd/resource";
