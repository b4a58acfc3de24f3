// Text renderings of daemon status and events for terminals; --json prints the objects as they are.
import { healthStatusToJSON, phaseToJSON, conditionStatusToJSON, severityToJSON, type DaemonStatus, type Event } from "@routerd/rpc";

export function statusToJson(s: DaemonStatus): Record<string, unknown> {
  return {
    daemon: s.daemon,
    instance: s.instance,
    pid: s.pid,
    phase: phaseToJSON(s.phase),
    health: healthStatusToJSON(s.health),
    startedAt: s.startedAt?.toISOString(),
    conditions: s.conditions.map((c) => ({ ...c, status: conditionStatusToJSON(c.status), lastTransitionTime: c.lastTransitionTime?.toISOString() })),
    resources: s.resources.map((r) => ({
      name: r.name,
      kind: r.kind,
      phase: r.phase,
      message: r.message,
      conditions: r.conditions.map((c) => ({ ...c, status: conditionStatusToJSON(c.status), lastTransitionTime: c.lastTransitionTime?.toISOString() })),
      details: r.detailsJson ? JSON.parse(r.detailsJson) : undefined,
      updatedAt: r.updatedAt?.toISOString(),
    })),
    details: s.detailsJson ? JSON.parse(s.detailsJson) : undefined,
    process: s.process,
  };
}

const mib = (bytes: number): string => `${(bytes / 1048576).toFixed(1)} MiB`;

export function statusToText(s: DaemonStatus): string {
  const lines = [`${s.daemon}/${s.instance}  pid ${s.pid}  ${phaseToJSON(s.phase).replace("PHASE_", "")}  ${healthStatusToJSON(s.health).replace("HEALTH_STATUS_", "")}`];
  const width = Math.max(8, ...s.resources.map((r) => r.name.length));
  for (const r of s.resources) lines.push(`  ${r.name.padEnd(width)}  ${r.phase.padEnd(10)} ${r.message}`.trimEnd());
  for (const c of s.conditions) lines.push(`  condition ${c.type}=${conditionStatusToJSON(c.status)} ${c.reason} ${c.message}`.trimEnd());
  const details = s.detailsJson ? (JSON.parse(s.detailsJson) as Record<string, unknown>) : {};
  lines.push(...detailLines(details));
  const pending = pendingConfirmation(details);
  if (pending) lines.push(pending);
  if (s.process) lines.push(`  memory: rss ${mib(s.process.rssBytes)}, heap ${mib(s.process.heapUsedBytes)} of ${mib(s.process.heapTotalBytes)}, external ${mib(s.process.externalBytes)}`);
  return lines.join("\n");
}

interface DaemonDetail {
  daemon: string;
  instance: string;
  pid?: number;
  restarts: number;
}

/** routerd serve's details: when it last reconciled, and the daemons it supervises. */
function detailLines(d: Record<string, unknown>): string[] {
  const out: string[] = [];
  if (typeof d.lastReconcile === "string") out.push(`  last reconcile ${d.lastReconcile}${d.ok === false ? " (failed: routerctl events --topic reconcile)" : ""}`);
  if (Array.isArray(d.daemons)) {
    const daemons = d.daemons as DaemonDetail[];
    out.push(`  daemons (${daemons.length}):`);
    for (const x of daemons) out.push(`    ${`${x.daemon}/${x.instance}`.padEnd(28)} ${x.pid ? `pid ${x.pid}` : "not running"}${x.restarts ? `, ${x.restarts} restarts` : ""}`);
  }
  return out;
}

interface PendingConfirmation {
  generation: number | null;
  revertTo: number | null;
  deadline: string | null;
}

/** routerd serve's pending confirmation (apply --confirm-within), as one line with the time left. */
function pendingConfirmation(details: Record<string, unknown>, now = Date.now()): string | undefined {
  const p = details.pendingConfirmation as PendingConfirmation | undefined;
  if (!p) return undefined;
  const left = p.deadline ? ` (in ${Math.max(0, Math.round((Date.parse(p.deadline) - now) / 1000))} s)` : "";
  const target = p.revertTo === null ? "nothing" : `generation ${p.revertTo}`;
  return `  pending confirmation: generation ${p.generation ?? "(being applied)"} reverts to ${target} at ${p.deadline ?? "(apply running)"}${left} unless \`routerd confirm\``;
}

export function eventToJson(e: Event): Record<string, unknown> {
  return { seq: e.seq, time: e.time?.toISOString(), topic: e.topic, severity: severityToJSON(e.severity), resource: e.resource, message: e.message, attributes: e.attributes };
}

export function eventToText(e: Event): string {
  const attrs = Object.entries(e.attributes ?? {}).map(([k, v]) => `${k}=${v}`).join(" ");
  return `${e.time?.toISOString() ?? "-"} #${e.seq} ${e.topic}${e.resource ? ` ${e.resource}` : ""}: ${e.message}${attrs ? `  (${attrs})` : ""}`;
}
