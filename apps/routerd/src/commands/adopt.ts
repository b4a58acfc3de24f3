import { backupLedger, LedgerSession, readStatuses } from "@routerd/resource";
import type { Command } from "@routerd/cli";
import { keyFacts } from "@routerd/host";
import { observeFor } from "../core/engine.js";
import { computeDesired, recordableAttributes } from "../core/desired.js";
import { plan } from "../core/plan.js";
import { COMMON_OPTIONS, CONFIG_OPTION, hostContext, loadConfigOrExit, reportError } from "./common.js";

export const adoptCommand: Command = {
  name: "adopt",
  summary: "take existing host objects the config describes into the ledger (never changes the host)",
  usage: "adopt --config FILE (--candidates | --apply) [--json]",
  description:
    "--candidates lists artifacts the config wants that already exist on the host but are not in the ledger,\n" +
    "with desired and observed attributes. --apply records them as adopted; it refuses (exit 1, ledger\n" +
    "unchanged) when any candidate has drifted: reconcile or fix the config first.",
  exitCodes: { 0: "listed, or adopted", 1: "invalid config, refused (drifted candidates), or an error" },
  examples: [
    { command: "routerd adopt --config router.yaml --candidates", description: "what on the host the config already describes" },
    { command: "routerd adopt --config router.yaml --apply", description: "record those objects as adopted (routerd then manages them)" },
  ],
  seeAlso: ["docs/ownership.md", "routerd ledger"],
  options: {
    ...CONFIG_OPTION,
    candidates: { type: "boolean", description: "list adoption candidates (read-only)" },
    apply: { type: "boolean", description: "record matching candidates as adopted" },
    json: { type: "boolean", description: "machine-readable output" },
    ...COMMON_OPTIONS,
  },
  async run(v, io) {
    if (Boolean(v.candidates) === Boolean(v.apply)) {
      io.err("adopt needs exactly one of --candidates or --apply");
      return 1;
    }
    const config = loadConfigOrExit(v, io);
    if (!config) return 1;
    const host = hostContext(v);
    let session: LedgerSession | undefined;
    try {
      session = LedgerSession.open(host.stateDir);
      const statuses = readStatuses(host.stateDir);
      const desired = computeDesired({ config, when: new Map(), stateDir: host.stateDir, keys: (path, what) => keyFacts(host, path, what) });
      const inventory = await observeFor(desired, session.ledger.list(), host);
      const p = plan({ desired, inventory, ledger: session.ledger, statuses, allowEmpty: false });
      const candidates = p.adoptionCandidates;
      const drifted = candidates.filter((c) => c.reason === "drifted");
      if (v.candidates) {
        if (v.json) io.out(JSON.stringify({ adoptionCandidates: candidates }, null, 2));
        else if (!candidates.length) io.out("No adoption candidates.");
        else for (const c of candidates) io.out(`${c.reason === "matches" ? "=" : "!"} ${c.kind} ${c.name} (owner ${c.owner}): ${c.reason === "matches" ? "matches" : c.differences.map((d) => `${d.field}: observed ${JSON.stringify(d.observed)}, desired ${JSON.stringify(d.desired)}`).join("; ")}`);
        return 0;
      }
      if (drifted.length) {
        const msg = `refusing to adopt: ${drifted.length} candidate${drifted.length === 1 ? " has" : "s have"} drifted (${drifted.map((c) => `${c.kind} ${c.name}`).join(", ")}); reconcile or fix the config first`;
        if (v.json) io.out(JSON.stringify({ adopted: [], refused: drifted, error: msg }, null, 2));
        else io.err(msg);
        return 1;
      }
      if (candidates.length) {
        backupLedger(host.stateDir);
        const byId = new Map(desired.desired.map((d) => [`${d.kind}/${d.name}`, d]));
        for (const c of candidates) {
          const d = byId.get(`${c.kind}/${c.name}`)!;
          const attributes = { ...recordableAttributes(d), ...(c.kind === "nft.table" ? { hostDigest: c.observed.hostDigest } : {}) };
          session.ledger.record({ kind: c.kind, name: c.name, owners: d.owners, ownership: "adopted", state: "present", attributes });
        }
        session.save();
      }
      if (v.json) io.out(JSON.stringify({ adopted: candidates.map((c) => ({ kind: c.kind, name: c.name, owner: c.owner })) }, null, 2));
      else io.out(`Adopted ${candidates.length} artifact${candidates.length === 1 ? "" : "s"}${candidates.map((c) => `\n  = ${c.kind} ${c.name}`).join("")}`);
      return 0;
    } catch (err) {
      return reportError(err, io, Boolean(v.json));
    } finally {
      session?.close();
    }
  },
};
