// `routerd status`: what every resource publishes now (the status fields of its kind's provides table) and
// its lifecycle phase from the last reconcile. Reads the config, status.json, the daemons and the host's
// links and WireGuard devices; changes nothing and takes no lock.
import { effectiveView, makeConfigView, type RouterConfig } from "@routerd/api";
import type { Command } from "@routerd/cli";
import { readStatuses } from "@routerd/resource";
import { readRuntime } from "../core/runtime.js";
import { publishedStatus, statusViewFor } from "../core/status.js";
import { COMMON_OPTIONS, CONFIG_OPTION, hostContext, loadConfigOrExit, reportError } from "./common.js";

export interface ResourceStatusReport {
  id: string;
  kind: string;
  name: string;
  /** Lifecycle phase from the last reconcile (Unknown before the first). */
  phase: string;
  reason?: string;
  message?: string;
  /** The published status: `phase` in the kind's own words and every provided field that has a value. */
  status: Record<string, unknown>;
}

export async function statusReport(config: RouterConfig, host: ReturnType<typeof hostContext>): Promise<ResourceStatusReport[]> {
  const statuses = readStatuses(host.stateDir);
  // WireGuard devices are read only when the config has one (readRuntime skips them otherwise): without them a
  // WireGuardInterface would show no backend, key or port, and a WireGuardPeer no handshake or counters.
  const runtime = await readRuntime(makeConfigView(config), host.runDir, { ...(config.resources.some((r) => r.kind === "Interface") ? { links: host } : {}), wireguard: host });
  const view = statusViewFor(config, runtime, statuses, {});
  const pending = new Map(effectiveView(config, view, view).pending.map((p) => [p.resource.owner, p.reason]));
  return config.resources.map((r) => {
    const s = statuses.get(r.owner);
    const id = `${r.kind}/${r.metadata.name}`;
    const waiting = pending.get(r.owner);
    return {
      id,
      kind: r.kind,
      name: r.metadata.name,
      phase: s?.phase ?? "Unknown",
      ...(s?.reason ? { reason: s.reason } : waiting ? { reason: "SourceUnresolved" } : {}),
      ...(s?.message ? { message: s.message } : waiting ? { message: waiting } : {}),
      status: publishedStatus(view, id),
    };
  });
}

const show = (v: unknown): string => (Array.isArray(v) ? v.map(show).join(",") : typeof v === "object" && v !== null ? JSON.stringify(v) : String(v));

export const statusCommand: Command = {
  name: "status",
  summary: "what every resource publishes now (its status fields) and its phase; touches nothing",
  usage: "status --config FILE [--json] [--state-dir DIR] [--run-dir DIR]",
  description:
    "Per resource: the lifecycle phase of the last reconcile and the status fields its kind provides (what\n" +
    "`xxxFrom: {resource: Kind/name, field}` and `when.state` read): a DHCPv4Client's currentAddress, gateway and\n" +
    "dnsServers, an Interface's addresses. --json prints {resources: [{id, kind, name, phase, reason, message, status}]};\n" +
    "`status` is the same object routerd serve publishes as each resource's details (routerctl status --json).",
  exitCodes: { 0: "success", 1: "invalid config or an error reading state" },
  examples: [
    { command: "routerd status --config /etc/routerd/router.yaml", description: "every resource's phase and the values it publishes" },
    { command: "routerd status --config router.yaml --json | jq '.resources[] | select(.id == \"DHCPv4Client/wan\").status'", description: "the WAN lease as *From fields read it (currentAddress, gateway, dnsServers, ...)" },
  ],
  seeAlso: ["routerd plan", "routerctl status"],
  options: { ...CONFIG_OPTION, json: { type: "boolean", description: "machine-readable report" }, ...COMMON_OPTIONS },
  async run(v, io) {
    const config = loadConfigOrExit(v, io, "read");
    if (!config) return 1;
    try {
      const report = await statusReport(config, hostContext(v));
      if (v.json) {
        io.out(JSON.stringify({ resources: report }, null, 2));
        return 0;
      }
      const width = Math.max(8, ...report.map((r) => r.id.length));
      for (const r of report) {
        const { phase, ...fields } = r.status;
        const own = phase !== undefined && phase !== r.phase ? ` (${String(phase)})` : "";
        const detail = r.message ? `${r.reason ?? ""}: ${r.message}` : Object.entries(fields).filter(([, x]) => !(Array.isArray(x) && x.length === 0)).map(([k, x]) => `${k}=${show(x)}`).join(" ");
        io.out(`${r.id.padEnd(width)}  ${(r.phase + own).padEnd(18)} ${detail}`.trimEnd());
      }
      return 0;
    } catch (err) {
      return reportError(err, io, Boolean(v.json));
    }
  },
};
