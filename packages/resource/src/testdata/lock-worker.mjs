// Child for the lock tests. Modes:
//   hold <modules> <stateDir> <delayMs>         open a LedgerSession, print "locked", hold; on SIGUSR1
//                                               wait delayMs, touch <stateDir>/releasing, close
//   try <modules> <stateDir> <timeoutMs>        open a LedgerSession; print {"ok":true} or the error
//   count <modules> <lockPath> <counter> <n>    n times: under the lock, read the counter, pause, write +1
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [mode, modules, target, arg, n] = process.argv.slice(2);
const store = await import(join(modules, "ledger-store.js"));
const files = await import(join(modules, "atomic-file.js"));
const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

if (mode === "hold") {
  const session = store.LedgerSession.open(target, 2_000);
  process.stdout.write("locked\n");
  // Holds until SIGUSR1, then lets go <arg> ms later (the parent is blocked waiting by then).
  process.on("SIGUSR1", () =>
    setTimeout(() => {
      writeFileSync(join(target, "releasing"), String(process.pid));
      session.close();
      process.exit(0);
    }, Number(arg)),
  );
  setTimeout(() => process.exit(3), 60_000); // never outlive a lost parent for long
} else if (mode === "try") {
  try {
    store.LedgerSession.open(target, Number(arg)).close();
    process.stdout.write(JSON.stringify({ ok: true }) + "\n");
  } catch (err) {
    process.stdout.write(JSON.stringify({ ok: false, name: err.name, holderPid: err.holderPid, message: err.message }) + "\n");
  }
} else if (mode === "count") {
  for (let i = 0; i < Number(n); i++) {
    files.withLock(
      target,
      () => {
        const value = existsSync(arg) ? Number(readFileSync(arg, "utf8")) : 0;
        pause(1); // widen the read-modify-write window: without the lock, updates would be lost
        writeFileSync(arg, String(value + 1));
      },
      30_000,
    );
  }
} else {
  process.stderr.write(`unknown mode ${mode}\n`);
  process.exit(2);
}
