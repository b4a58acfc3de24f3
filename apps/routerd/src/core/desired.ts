// Stage "effective view → intents → desired": which artifacts the config wants right now, with rendered
// content filled in for tables. Pure.
import {
  UNKNOWN_RUNTIME,
  allocationKey,
  derivedPackageIntents,
  derivedRuntimeIntents,
  type HostRuntime,
  effectiveView,
  withEgressNumbers,
  type AllocationResult,
  type ConfigView,
  type EgressAllocation,
  type EgressRoutePolicySpec,
  type Resource,
  kindDefinition,
  makeConfigView,
  type EffectiveView,
  type RouterConfig,
  type RuntimeView,
  type StatusView,
  type WhenLookup,
  type WhenState,
} from "@routerd/api";
import { defaultSelection, renderDesiredTables, renderDnsmasqConfig, type EgressSelection, type IngressSelection } from "@routerd/render";
import { mergeIntents, stableJson, type ArtifactIntent, type DesiredArtifact, type OwnerKey } from "@routerd/resource";
import { serviceHoles } from "./holes.js";
import { forSupervisor, type SupervisorMode } from "./service-units.js";
import type { DaemonDirs } from "../serve/daemons.js";

export interface DesiredState {
  view: EffectiveView;
  /** Intents per active resource (by owner), in config order. */
  intents: Map<OwnerKey, ArtifactIntent[]>;
  desired: DesiredArtifact[];
  /**
   * Owners whose existing artifacts must be kept as they are, with the reason: their daemon state is
   * unknown, or they wait for a status-sourced value (pending).
   */
  held: Map<OwnerKey, string>;
  /** Numbers allocated to active EgressRoutePolicy candidates that do not configure them (shown by plan). */
  allocations: EgressAllocation[];
  /** The active resources as intents saw them (values filled in), with the run's runtime facts: daemons are configured from it. */
  activeView?: ConfigView;
}

export interface DesiredInput {
  config: RouterConfig;
  when: WhenState | WhenLookup;
  /** Fills in `*From` values; a config that has any needs it. */
  sources?: StatusView;
  /** Numbers for EgressRoutePolicy candidates that configure none; a config that has such candidates needs it. */
  egress?: AllocationResult;
  /** Active EgressRoutePolicy candidates (from health state); defaults to the highest weight. */
  selection?: EgressSelection;
  /** IngressService backends taking new connections (from health); defaults to every backend. */
  ingress?: IngressSelection;
  runtime?: RuntimeView;
  /** Where daemons keep state (the dnsmasq lease file lives there). */
  stateDir: string;
  /**
   * Reads a key file named in the config: the public key of a private key, the fingerprint of a preshared
   * key, or why it cannot. Keys themselves never enter the desired state.
   */
  keys?: KeyReader;
  /**
   * Set when the host has a package database: the packages the config needs are added as intents (observed,
   * or ensured with `install`), and Package entries for another OS than `os` are left out.
   */
  packages?: { os?: { id: string; like: readonly string[] }; managers?: readonly string[]; install: boolean };
  /** What the host runtime takes (module loading, networkd, resolved): the derived runtime intents follow it. None when omitted. */
  hostRuntime?: HostRuntime;
  /** Who runs the daemons: serve's built-in supervisor (default) or generated systemd units. */
  supervisor?: SupervisorMode;
  /** Where daemons run (their units' command lines name them); default routerd's standard directories. */
  daemonDirs?: DaemonDirs;
}

export type KeyReader = (path: string, what: "privateKeyFile" | "presharedKeyFile") => { value: string } | { error: string };

export function computeDesired(input: DesiredInput): DesiredState {
  const view = effectiveView(input.config, input.when, input.sources);
  const allocations = input.egress ? numberPolicies(view, input.egress) : [];
  // Renderers and intents see only active resources: an inactive rule must not be rendered.
  const active = makeConfigView({ ...input.config, resources: view.active }, input.runtime ?? UNKNOWN_RUNTIME);
  const intents = new Map<OwnerKey, ArtifactIntent[]>();
  const held = new Map<OwnerKey, string>();
  const units = { view: active, dirs: input.daemonDirs ?? { runDir: "/run/routerd", stateDir: input.stateDir, root: "/" } };
  for (const r of view.active) {
    const def = kindDefinition(r.kind)!;
    const derived = [...(input.packages ? derivedPackageIntents(r, input.packages.install) : []), ...(input.hostRuntime ? derivedRuntimeIntents(r, active, input.hostRuntime) : [])];
    intents.set(r.owner, forSupervisor(forHostOs([...def.intents(r, active), ...derived], input.packages?.os, input.packages?.managers), r, input.supervisor ?? "builtin", units));
    const reason = def.holdsExisting?.(r, active);
    if (reason) held.set(r.owner, reason);
  }
  for (const p of view.pending) held.set(p.resource.owner, `waiting for ${p.reason}`);
  // Tables are shared by several resources; their content comes from the renderer, not the intents.
  // Tables and the dnsmasq config are shared by several resources: their content comes from a renderer.
  const rendered = (a: Record<string, unknown>) => a.validate === "dnsmasq";
  const desired = mergeIntents([...intents.values()].flat(), (kind, a, b) =>
    kind === "nft.table" || (kind === "file" && rendered(a)) ? a : kind === "package" ? mergePackage(a, b) : kind === "linux.kernelModule" ? mergeModule(a, b) : stableJson(a) === stableJson(b) ? a : undefined,
  );
  const tables = renderDesiredTables(
    desired.filter((d) => d.kind === "nft.table").map((d) => d.name),
    { view: active, selection: input.selection ?? defaultSelection(active), holes: serviceHoles(active), ...(input.ingress ? { ingress: input.ingress } : {}) },
  );
  for (const d of desired) {
    const t = tables.get(d.name);
    if (d.kind === "nft.table" && t) d.attributes = { family: t.family, table: t.table, contentDigest: t.digest, content: t.content };
    if (d.kind === "file" && d.attributes.validate === "dnsmasq") d.attributes = { ...d.attributes, content: renderDnsmasqConfig({ view: active, stateDir: input.stateDir }) };
    if (d.kind === "wireguard.device" || d.kind === "wireguard.peer") d.attributes = withKeyFacts(d.kind, d.attributes, input.keys);
  }
  return { view, intents, desired, held, allocations, activeView: active };
}

/** Active policies get their candidates' numbers; one whose numbers cannot be chosen now waits (pending). */
function numberPolicies(view: EffectiveView, egress: AllocationResult): EgressAllocation[] {
  const out: EgressAllocation[] = [];
  const active: Resource[] = [];
  for (const r of view.active) {
    if (r.kind !== "EgressRoutePolicy") {
      active.push(r);
      continue;
    }
    const keys = (r.spec as EgressRoutePolicySpec).candidates.map((c) => allocationKey(r.metadata.name, c.name));
    const waiting = keys.map((k) => egress.waiting.get(k)).find((w) => w !== undefined);
    if (waiting) {
      view.pending.push({ resource: r, reason: waiting });
      continue;
    }
    for (const k of keys) {
      const a = egress.numbers.get(k);
      if (a) out.push(a);
    }
    active.push(withEgressNumbers(r as Resource<EgressRoutePolicySpec>, egress.numbers));
  }
  view.active = active;
  return out;
}

/**
 * Package intents only for the host's OS (any OS when it is not known) and for a manager whose database the
 * root has (when known: a dnf name is never planned on a dpkg root); other intents as they are.
 */
function forHostOs(intents: ArtifactIntent[], os: { id: string; like: readonly string[] } | undefined, managers: readonly string[] | undefined): ArtifactIntent[] {
  const ids = os ? new Set([os.id, ...os.like]) : undefined;
  return intents.filter((i) => i.kind !== "package" || ((!ids || (i.attributes.os as string[]).some((o) => ids.has(o))) && (!managers || managers.includes(String(i.attributes.manager)))));
}

/** A package several resources want: required if any of them requires it. */
function mergePackage(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  return { ...a, os: [...new Set([...(a.os as string[]), ...(b.os as string[])])].sort(), optional: a.optional === true && b.optional === true };
}

/** A module several resources need: required if any of them requires it. */
function mergeModule(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  return { ...a, optional: a.optional === true && b.optional === true };
}

/** A WireGuard device gets the public key of its private key file, a peer its preshared key's fingerprint. */
function withKeyFacts(kind: "wireguard.device" | "wireguard.peer", attrs: Record<string, unknown>, keys: KeyReader | undefined): Record<string, unknown> {
  const device = kind === "wireguard.device";
  const path = String((device ? attrs.privateKeyFile : attrs.presharedKeyFile) ?? "");
  const field = device ? "publicKey" : "presharedKeyFingerprint";
  if (!path) return device ? attrs : { ...attrs, [field]: "" };
  const fact = keys ? keys(path, device ? "privateKeyFile" : "presharedKeyFile") : { error: "key files were not read" };
  return "value" in fact ? { ...attrs, [field]: fact.value } : { ...attrs, keyError: fact.error };
}

/** What the ledger keeps of a desired artifact: no bulky rendered text. */
export function recordableAttributes(d: DesiredArtifact): Record<string, unknown> {
  if (d.kind !== "nft.table") return d.attributes;
  const { content: _c, ...rest } = d.attributes;
  return rest;
}
