// apply: runs ensure and remove steps in dependency order (add before delete), batching every ip change of
// a phase into one `ip -batch -force` process. Returns what succeeded and what failed, step by step;
// the caller re-observes to verify before it records anything as present.
import { artifactId, parseRouteName, type ArtifactKind, type Attributes, type Inventory } from "@routerd/resource";
import type { HostContext } from "../context.js";
import { announceIpv4Address } from "./announce.js";
import { IP_LINES, failedBatchLines } from "./ip-lines.js";
import { linksNeedingPromotion, promoteSecondaries } from "./ipv4-siblings.js";
import { deleteTable, replaceTable } from "./nft.js";
import { claimRouteProtocol, deleteFileBlock, flushRouteProtocol, writeFileBlock, writeHostname, writeSysctl } from "./system.js";
import { addFdb, addFou, deleteFdb, deleteFou } from "./tunnels.js";
import { installPackage } from "../packages.js";
import { loadKernelModule, removeDropin, writeDropin } from "../runtime.js";
import { ensureRcScript, removeRcScript } from "../rc-scripts.js";
import { ensureUnit, removeUnit } from "../units.js";
import { ensureWireGuardDevice, ensureWireGuardPeer, removeWireGuardDevice, removeWireGuardPeer } from "./wireguard.js";

export interface Step {
  op: "ensure" | "remove";
  kind: ArtifactKind;
  name: string;
  attributes: Attributes;
}

export interface StepResult {
  op: Step["op"];
  kind: ArtifactKind;
  name: string;
  ok: boolean;
  /** Nothing to do here: another process (routerd serve's supervisor) owns this step. */
  deferred?: boolean;
  /**
   * Succeeded without bringing its artifact about, which is allowed for it (an optional module modprobe could
   * not load): why. The artifact is not recorded; its resource does not fail.
   */
  warning?: string;
  error?: string;
}

/** What starts and stops daemons; only `routerd serve` has one. */
export interface DaemonPort {
  ensure(attrs: Attributes): Promise<void>;
  remove(attrs: Attributes): Promise<void>;
}

export interface ApplyRequest {
  steps: Step[];
  /** For removing a route table: the routes it still holds. */
  inventory: Inventory;
  /** Artifact ids routerd wants, never removed as a side effect (a desired route in a removed table). */
  desired: ReadonlySet<string>;
  daemons?: DaemonPort;
}

type DirectResult = void | "deferred" | { warning: string };
type Direct = (step: Step, ctx: HostContext, req: ApplyRequest) => Promise<DirectResult> | DirectResult;

interface Phase {
  order: number;
  ip?: true;
  /** Run once the ip batch brought this artifact about (an address announced); an error fails the step. */
  after?: (step: Step, ctx: HostContext) => Promise<void>;
  direct?: Direct;
  /** Depends on nothing else in the run: applied concurrently with the ordered phases, not after them. */
  alongside?: true;
}

const ENSURE: Partial<Record<ArtifactKind, Phase>> = {
  // Packages first: what the other steps run may come with them.
  package: { order: 5, direct: (s, ctx) => installPackage(ctx, s.attributes) },
  // Modules before the links and tables that use them; drop-ins before networkd could take a new link.
  "linux.kernelModule": { order: 6, direct: (s, ctx) => loadKernelModule(ctx, s.attributes) },
  "systemd.dropin": { order: 7, direct: (s, ctx) => writeDropin(ctx, s.attributes) },
  "linux.sysctl": { order: 10, direct: (s) => writeSysctl(s.attributes) },
  "linux.hostname": { order: 11, direct: (s) => writeHostname(s.attributes) },
  "linux.fou": { order: 19, direct: (s, ctx) => addFou(ctx.runner, s.attributes) },
  // A WireGuard device exists before its link is set up and addressed; its peers before their routes.
  "wireguard.device": { order: 15, direct: (s, ctx) => ensureWireGuardDevice(ctx, s.attributes) },
  "wireguard.peer": { order: 16, direct: (s, ctx) => ensureWireGuardPeer(ctx, s.attributes) },
  "linux.link": { order: 20, ip: true },
  "linux.ipv4.address": { order: 21, ip: true, after: (s, ctx) => announceIpv4Address(ctx, s.attributes) },
  "linux.ipv6.address": { order: 21, ip: true },
  "linux.ipv4.routeTable": { order: 22, ip: true },
  "linux.ipv6.route": { order: 22, ip: true },
  "linux.ipv4.route": { order: 22, ip: true },
  "linux.ipv4.fwmarkRule": { order: 23, ip: true },
  "linux.fdb": { order: 24, direct: (s, ctx) => addFdb(ctx.runner, s.attributes) },
  // Rules match interfaces by name, so a table need not wait for links: it is written while `ip -batch` works.
  "nft.table": { order: 30, alongside: true, direct: (s, ctx) => replaceTable(ctx.runner, s.attributes) },
  "nft.set": { order: 31, direct: () => undefined }, // rendered inside its table
  file: { order: 40, direct: (s, ctx) => writeFileBlock(ctx, s.attributes) },
  // The protocol's registration; the routes themselves are written by the daemon (routerd-bgp).
  "linux.route.protocol": { order: 41, direct: (s, ctx) => claimRouteProtocol(ctx, s.attributes) },
  "routerd.daemon": { order: 60, direct: async (s, _ctx, req) => (req.daemons ? req.daemons.ensure(s.attributes) : "deferred") },
  "routerd.lease": { order: 61, direct: () => "deferred" },
  // A generated unit starts what it runs once everything it may need is in place.
  "systemd.service": { order: 62, direct: (s, ctx) => ensureUnit(ctx, s.attributes) },
  "freebsd.rcScript": { order: 62, direct: (s, ctx) => ensureRcScript(ctx, s.attributes) },
};

const REMOVE: Partial<Record<ArtifactKind, Phase>> = {
  "routerd.daemon": { order: 100, direct: async (s, _ctx, req) => (req.daemons ? req.daemons.remove(s.attributes) : "deferred") },
  "systemd.service": { order: 101, direct: (s, ctx) => removeUnit(ctx, s.attributes) },
  "freebsd.rcScript": { order: 101, direct: (s, ctx) => removeRcScript(ctx, s.attributes) },
  "nft.table": { order: 105, direct: (s, ctx) => deleteTable(ctx.runner, { family: String(s.attributes.family), table: String(s.attributes.table) }) },
  "nft.set": { order: 106, direct: () => undefined },
  "linux.fdb": { order: 108, direct: (s, ctx) => deleteFdb(ctx.runner, s.attributes) },
  "wireguard.peer": { order: 108, direct: (s, ctx) => removeWireGuardPeer(ctx, s.attributes) },
  "linux.ipv4.fwmarkRule": { order: 110, ip: true },
  "linux.ipv4.route": { order: 120, ip: true },
  // After the daemon that writes them has stopped (order 100).
  "linux.route.protocol": { order: 121, direct: (s, ctx) => flushRouteProtocol(ctx, s.attributes) },
  "linux.ipv6.route": { order: 120, ip: true },
  "linux.ipv4.routeTable": { order: 130, ip: true },
  "linux.ipv4.address": { order: 135, ip: true },
  "linux.ipv6.address": { order: 135, ip: true },
  "linux.link": { order: 140, ip: true },
  "linux.fou": { order: 145, direct: (s, ctx) => deleteFou(ctx.runner, s.attributes) },
  "wireguard.device": { order: 140, direct: (s, ctx) => removeWireGuardDevice(ctx, s.attributes) },
  file: { order: 150, direct: (s, ctx) => deleteFileBlock(ctx, s.attributes) },
  // After the links that used them are gone; a drop-in only once its link is routerd's no more.
  "systemd.dropin": { order: 155, direct: (s, ctx) => removeDropin(ctx, s.attributes) },
  "routerd.lease": { order: 160, direct: () => "deferred" },
};

function linesFor(step: Step, req: ApplyRequest): string[] {
  if (step.op === "remove" && step.kind === "linux.ipv4.routeTable") {
    const routes = req.inventory.get("linux.ipv4.route");
    if (routes?.status !== "known") return [];
    const table = Number(step.attributes.table ?? step.name);
    return [...routes.items.values()]
      .filter((r) => parseRouteName(r.name)?.table === table && !req.desired.has(artifactId(r)))
      // Routes removed by their own step in this run are gone already.
      .filter((r) => !req.steps.some((s) => s.op === "remove" && s.kind === "linux.ipv4.route" && s.name === r.name))
      .flatMap((r) => IP_LINES["linux.ipv4.route"]!.remove(r.attributes));
  }
  const builder = IP_LINES[step.kind];
  if (!builder) return [];
  if (step.op === "remove") return builder.remove(step.attributes);
  // A link's lines depend on whether it is there already (create, or make again, or only set).
  const observed = step.kind === "linux.link" ? observedOf(req.inventory, step) : undefined;
  return builder.ensure(step.attributes, Date.now(), observed);
}

function observedOf(inventory: Inventory, step: Step): Attributes | undefined {
  const inv = inventory.get(step.kind);
  return inv?.status === "known" ? inv.items.get(step.name)?.attributes : undefined;
}

const phaseOf = (s: Step) => (s.op === "ensure" ? ENSURE : REMOVE)[s.kind];

const runsAlongside = (s: Step) => phaseOf(s)?.alongside === true;

export async function apply(ctx: HostContext, req: ApplyRequest): Promise<StepResult[]> {
  const unsupported: StepResult[] = req.steps.filter((s) => !phaseOf(s)).map((s) => ({ op: s.op, kind: s.kind, name: s.name, ok: false, error: `no ${s.op} executor for ${s.kind}` }));
  const supported = req.steps.filter((s) => phaseOf(s));
  const [main, alongside] = await Promise.all([
    applyInOrder(ctx, req, supported.filter((s) => !runsAlongside(s))),
    applyInOrder(ctx, req, supported.filter(runsAlongside)),
  ]);
  return [...unsupported, ...main, ...alongside];
}

async function applyInOrder(ctx: HostContext, req: ApplyRequest, input: Step[]): Promise<StepResult[]> {
  const results: StepResult[] = [];
  const steps = [...input].sort((a, b) => phaseOf(a)!.order - phaseOf(b)!.order);

  let i = 0;
  while (i < steps.length) {
    const phase = phaseOf(steps[i]!)!;
    if (!phase.ip) {
      const step = steps[i++]!;
      try {
        const r = await phase.direct!(step, ctx, req);
        results.push({ op: step.op, kind: step.kind, name: step.name, ok: true, ...(r === "deferred" ? { deferred: true } : r ? { warning: r.warning } : {}) });
      } catch (err) {
        results.push({ op: step.op, kind: step.kind, name: step.name, ok: false, error: (err as Error).message });
      }
      continue;
    }
    // Collect the run of consecutive ip steps into one batch.
    const batch: { step: Step; first: number; last: number }[] = [];
    const lines: string[] = [];
    while (i < steps.length && phaseOf(steps[i]!)!.ip) {
      const step = steps[i++]!;
      const own = linesFor(step, req);
      batch.push({ step, first: lines.length + 1, last: lines.length + own.length });
      lines.push(...own);
    }
    const restore = promoteSecondaries(linksNeedingPromotion(batch.map((b) => b.step), req.steps, req.inventory));
    let failed = new Map<number, string>();
    try {
      if (lines.length) failed = failedBatchLines((await ctx.runner.run("ip", ["-force", "-batch", "-"], { input: lines.join("\n") + "\n" })).stderr);
    } finally {
      restore();
    }
    const outcomes = batch.map(async (b) => {
      const errors = failed.size ? [...failed].filter(([n]) => n >= b.first && n <= b.last).map(([n, e]) => `${lines[n - 1]}: ${e}`) : [];
      const after = phaseOf(b.step)!.after;
      if (errors.length === 0 && after) await after(b.step, ctx).catch((err: Error) => errors.push(err.message));
      return { op: b.step.op, kind: b.step.kind, name: b.step.name, ok: errors.length === 0, ...(errors.length ? { error: errors.join("; ") } : {}) };
    });
    results.push(...(await Promise.all(outcomes)));
  }
  return results;
}
