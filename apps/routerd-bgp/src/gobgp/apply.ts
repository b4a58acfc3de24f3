// Brings gobgpd to the desired config through its API, as a diff: new sets and policies first, then
// neighbors (added, updated in place, deleted), then policies and sets nobody uses any more. Adding a
// neighbor never touches the others; an updated neighbor is reset only when GoBGP needs to.
import { status as grpcStatus, type ServiceError } from "@grpc/grpc-js";
import type { Logger } from "pino";
import { PolicyDirection, ResetPeerRequest_SoftResetDirection, RouteAction } from "@routerd/gobgp-api/gen/gobgp";
import type { GobgpClient } from "./client.js";
import type { DesiredBgp } from "./desired.js";

/** Our policy and set names; anything else in gobgpd is left alone. */
const OURS = /^rd-(in|out)-/;

export interface ApplyReport {
  added: string[];
  updated: string[];
  removed: string[];
  /** gobgpd runs with another ASN/router ID/listen setting: only a restart of gobgpd changes that. */
  restartRequired?: string;
}

const exists = (err: unknown) => {
  const e = err as ServiceError;
  return e?.code === grpcStatus.ALREADY_EXISTS || /already exist/i.test(e?.details ?? e?.message ?? "");
};

/** What routerd-bgp last applied to this gobgpd; cleared when gobgpd restarts. */
export interface Applied {
  /** Neighbor address → digest ("?" when it did not apply it itself) and policy names. */
  neighbors: Map<string, { digest: string; policies: string }>;
  /** The global import/export assignments, "" when not set by this routerd-bgp. */
  assignments: string;
}

export const emptyApplied = (): Applied => ({ neighbors: new Map(), assignments: "" });

/** As JSON in routerd-bgp's state dir, tagged with the gobgpd pid it belongs to. */
export function appliedToJson(a: Applied, pid: number): string {
  return JSON.stringify({ pid, assignments: a.assignments, neighbors: Object.fromEntries(a.neighbors) }) + "\n";
}

/** The saved record if it belongs to this gobgpd, else an empty one (the neighbors are then re-read). */
export function appliedFromJson(text: string | undefined, pid: number): Applied {
  try {
    const v = JSON.parse(text ?? "") as { pid: number; assignments: string; neighbors: Record<string, { digest: string; policies: string }> };
    if (v.pid === pid) return { assignments: v.assignments, neighbors: new Map(Object.entries(v.neighbors)) };
  } catch {
    /* none or damaged: start over */
  }
  return emptyApplied();
}

const assignment = (direction: PolicyDirection, names: string[]) => ({
  name: "global",
  direction,
  policies: names.map((name) => ({ name, statements: [] })),
  defaultAction: RouteAction.ACCEPT,
});

export async function applyDesired(client: GobgpClient, desired: DesiredBgp, applied: Applied, logger: Logger): Promise<ApplyReport> {
  const report: ApplyReport = { added: [], updated: [], removed: [] };
  const running = await client.getGlobal();
  if (running === undefined || running.asn === 0) {
    await client.startBgp({ global: desired.global });
    applied.neighbors.clear();
    applied.assignments = "";
  } else {
    const want = desired.global;
    if (running.asn !== want.asn || running.routerId !== want.routerId || running.listenPort !== want.listenPort) {
      report.restartRequired = `gobgpd runs AS ${running.asn} router-id ${running.routerId} port ${running.listenPort}; wanted AS ${want.asn} router-id ${want.routerId} port ${want.listenPort}`;
      return report;
    }
  }
  if (applied.neighbors.size === 0) for (const p of await client.listPeers()) if (p.conf) applied.neighbors.set(p.conf.neighborAddress, { digest: "?", policies: "?" });

  for (const set of desired.sets.values()) {
    try {
      await client.addDefinedSet({ definedSet: set });
    } catch (err) {
      if (!exists(err)) throw err;
    }
  }
  const existingPolicies = new Set(await client.listPolicyNames());
  for (const policy of desired.policies.values()) {
    if (existingPolicies.has(policy.name)) continue;
    await client.addPolicy({ policy, referExistingStatements: false });
  }

  // Policies first, so a new neighbor's first paths already meet them.
  const assignments = JSON.stringify([desired.importPolicies, desired.exportPolicies]);
  if (assignments !== applied.assignments) {
    await client.setPolicyAssignment({ assignment: assignment(PolicyDirection.IMPORT, desired.importPolicies) });
    await client.setPolicyAssignment({ assignment: assignment(PolicyDirection.EXPORT, desired.exportPolicies) });
    applied.assignments = assignments;
  }

  for (const [address, n] of desired.neighbors) {
    const had = applied.neighbors.get(address);
    if (had === undefined) {
      await client.addPeer({ peer: n.peer });
      report.added.push(address);
    } else if (had.digest !== n.digest) {
      await client.updatePeer({ peer: n.peer, doSoftResetIn: true });
      report.updated.push(address);
    }
    if (had !== undefined && had.policies !== n.policies) {
      // Re-evaluate what it sent us and what we send it under the new policies (no session reset).
      await client.resetPeer({ address, communication: "", soft: true, direction: ResetPeerRequest_SoftResetDirection.BOTH });
      if (!report.updated.includes(address)) report.updated.push(address);
    }
    applied.neighbors.set(address, { digest: n.digest, policies: n.policies });
  }
  for (const address of [...applied.neighbors.keys()]) {
    if (desired.neighbors.has(address)) continue;
    await client.deletePeer({ address, interface: "" });
    applied.neighbors.delete(address);
    report.removed.push(address);
  }

  for (const name of existingPolicies) {
    if (!OURS.test(name) || desired.policies.has(name)) continue;
    await client.deletePolicy({ policy: { name, statements: [] }, preserveStatements: false, all: true }).catch((err: unknown) => logger.warn({ err, policy: name }, "stale policy not deleted"));
  }
  for (const set of await client.listDefinedSetNames()) {
    if (!OURS.test(set.name) || desired.sets.has(set.name)) continue;
    await client
      .deleteDefinedSet({ definedSet: { definedType: set.type, name: set.name, list: [], prefixes: [] }, all: true })
      .catch((err: unknown) => logger.warn({ err, set: set.name }, "stale defined set not deleted"));
  }
  return report;
}
