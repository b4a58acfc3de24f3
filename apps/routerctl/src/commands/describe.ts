import type { Command } from "@routerd/cli";
import { readLedger } from "@routerd/resource";
import { existsSync } from "node:fs";
import { collect, providedFields, type ResourceView } from "../resources/collect.js";
import { recentEvents, type LoggedEvent } from "../resources/events.js";
import { serialize, showValue } from "../resources/format.js";
import { sourceStates, type SourceState } from "../resources/sources.js";
import { parseInvocation } from "./get.js";
import { STATE_OPTIONS } from "./state-options.js";

interface Description {
  id: string;
  kind: string;
  name: string;
  owner?: string;
  phase: string;
  reason?: string;
  message?: string;
  updatedAt?: string;
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  sources: SourceState[];
  artifacts: { kind: string; name: string; ownership: string; state: string }[];
  events: LoggedEvent[];
  notes: string[];
}

function describeText(d: Description): string {
  const lines = [`Name:      ${d.name}`, `Kind:      ${d.kind}`, ...(d.owner ? [`Owner:     ${d.owner}`] : []), `Phase:     ${d.phase}${d.updatedAt ? `  (since ${d.updatedAt})` : ""}`];
  if (d.reason || d.message) lines.push(`Reason:    ${[d.reason, d.message].filter(Boolean).join(": ")}`);
  lines.push("Spec:", ...(d.spec ? serialize(d.spec, "yaml").split("\n").map((l) => `  ${l}`) : ["  (not in the config)"]));
  lines.push("Status fields:");
  if (!d.status) lines.push("  (unavailable: routerd serve is not answering)");
  else {
    const provided = providedFields(d.kind) ?? Object.keys(d.status);
    if (!provided.length) lines.push("  (this kind provides none)");
    for (const f of provided) lines.push(`  ${f}: ${f in d.status ? showValue(d.status[f]) : "-"}`);
  }
  if (d.sources.length) {
    lines.push("Sources (*From):");
    for (const s of d.sources) lines.push(`  ${s.path} ← ${s.resource}.${s.field}: ${s.state === "resolved" ? `${showValue(s.value)}` : `${s.state.toUpperCase()} (${s.detail})`}`);
  }
  lines.push("Owned artifacts (ledger):");
  if (!d.artifacts.length) lines.push("  (none)");
  for (const a of d.artifacts) lines.push(`  ${a.ownership.padEnd(8)} ${a.state.padEnd(8)} ${a.kind} ${a.name}`);
  lines.push("Events:");
  if (!d.events.length) lines.push("  (none recorded)");
  for (const e of d.events) lines.push(`  ${e.time} ${e.severity.padEnd(7)} ${e.topic}: ${e.message}`);
  for (const n of d.notes) lines.push(`note: ${n}`);
  return lines.join("\n");
}

function describe(r: ResourceView, all: ReadonlyMap<string, ResourceView>, stateDir: string, notes: string[]): Description {
  const ledger = existsSync(stateDir) ? readLedger(stateDir) : undefined;
  const artifacts = (ledger?.list() ?? []).filter((e) => r.owner !== undefined && e.owners.includes(r.owner)).map((e) => ({ kind: e.kind, name: e.name, ownership: e.ownership, state: e.state }));
  return {
    id: r.id,
    kind: r.kind,
    name: r.name,
    ...(r.owner ? { owner: r.owner } : {}),
    phase: r.phase,
    ...(r.reason ? { reason: r.reason } : {}),
    ...(r.message ? { message: r.message } : {}),
    ...(r.updatedAt ? { updatedAt: r.updatedAt } : {}),
    ...(r.spec ? { spec: r.spec } : {}),
    ...(r.fields ? { status: r.fields } : {}),
    sources: sourceStates(r, all),
    artifacts,
    events: recentEvents(stateDir, r.id),
    notes,
  };
}

export const describeCommand: Command = {
  name: "describe",
  summary: "one resource in full: spec, status, owned artifacts, recent events, pending *From sources",
  usage: "describe KIND/NAME [-o table|json|yaml] [--state-dir DIR] [--run-dir DIR] [--config FILE]",
  description:
    "Everything routerd knows about one resource: its spec (from the current config generation, or --config),\n" +
    "the phase and message of the last reconcile, the status fields its kind provides with their values (from\n" +
    "routerd serve), each `*From` source and whether it has a value yet, the artifacts it owns in the ledger,\n" +
    "and its recent events (serve's event log).",
  positionals: [{ name: "KIND/NAME", description: "the resource, e.g. Interface/wan or dhcpv4client/wan" }],
  exitCodes: { 0: "described", 1: "no such kind or resource, or an unreadable state file" },
  examples: [
    { command: "routerctl describe Interface/wan", description: "the WAN interface: spec, addresses, owned link and addresses, events" },
    { command: "routerctl describe IPv4Route/default -o json", description: "the same as JSON, e.g. to see why a gatewayFrom is pending" },
  ],
  seeAlso: ["routerctl get", "routerd ledger"],
  options: STATE_OPTIONS,
  async run(v, io, positionals) {
    const target = parseInvocation(v, positionals, true);
    if ("error" in target) {
      io.err(target.error);
      return 1;
    }
    const { format } = target;
    const stateDir = String(v["state-dir"]);
    const got = await collect({ stateDir, runDir: String(v["run-dir"]), ...(v.config ? { configPath: String(v.config) } : {}) });
    const r = got.resources.find((x) => x.kind === target.kind && x.name === target.name);
    if (!r) {
      io.err(`routerctl: ${target.kind}/${target.name} not found (config: ${got.configSource})`);
      return 1;
    }
    const notes = [`spec from ${got.configSource}`, ...(got.fieldsUnavailable ? [got.fieldsUnavailable] : [])];
    const d = describe(r, new Map(got.resources.map((x) => [x.id, x])), stateDir, notes);
    io.out(format === "table" ? describeText(d) : serialize(d, format));
    return 0;
  },
};
