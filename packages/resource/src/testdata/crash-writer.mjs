// Child for the crash test: resumes the ledger in <stateDir>, then rewrites it forever until the parent
// kills it with SIGKILL. Modes:
//   ledger  every loop records all entries again and calls writeLedger (the real write path)
//   raw     alternates two prepared snapshots (generation g+1, g+2) through writeFileAtomic, so nearly
//           all of its time is spent inside the write: most kills land mid-write
// usage: node crash-writer.mjs <ledger|raw> <modulesDir> <stateDir> <entries>
import { join } from "node:path";

const [mode, modules, stateDir, count] = process.argv.slice(2);
const { ledgerPath, readLedger, writeLedger } = await import(join(modules, "ledger-store.js"));
const { writeFileAtomic } = await import(join(modules, "atomic-file.js"));
const { ownerKey } = await import(join(modules, "artifact.js"));

const ledger = readLedger(stateDir);
const owner = ownerKey("net.routerd.net/v1alpha1", "IPv4Route", "bulk");
const pad = "x".repeat(600);
const recordAll = (round) => {
  for (let i = 0; i < Number(count); i++) {
    ledger.record({
      kind: "linux.ipv4.route",
      name: `table=100,dst=10.${(i >> 8) & 255}.${i & 255}.0/24,metric=0`,
      owners: [owner],
      ownership: "created",
      state: "present",
      attributes: { round, pad },
    });
  }
};

if (mode === "raw") {
  const snapshots = [1, 2].map((step) => {
    const generation = ledger.generation + step;
    const doc = ledger.toDocument();
    const entries = Array.from({ length: Number(count) }, (_, i) => ({
      kind: "linux.ipv4.route",
      name: `table=100,dst=10.${(i >> 8) & 255}.${i & 255}.0/24,metric=0`,
      owner,
      owners: [owner],
      ownership: "created",
      state: "present",
      attributes: { step, pad },
      generation,
      recordedAt: new Date().toISOString(),
    }));
    return Buffer.from(JSON.stringify({ ...doc, generation, entries }, null, 2) + "\n");
  });
  for (let i = 0; ; i++) {
    writeFileAtomic(ledgerPath(stateDir), snapshots[i % 2], 0o600);
    if (i === 0) process.stdout.write("ready\n");
  }
} else {
  for (let round = 0; ; round++) {
    recordAll(round);
    writeLedger(stateDir, ledger);
    if (round === 0) process.stdout.write("ready\n");
  }
}
