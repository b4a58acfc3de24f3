// `routerd render`: what reconcile would write, per output kind, computed from the config alone (pure: no
// host is read). A data-driven registry: a new renderer is one entry in OUTPUT_KINDS.
import { UNKNOWN_RUNTIME, makeConfigView, type ConfigView, type RouterConfig } from "@routerd/api";
import { IP_LINES, replaceTableScript, rooted, upsertBlock } from "@routerd/host";
import { PROGRAMS, RC_DIRS, renderRcScript, renderSystemdUnit, unitName, type ProgramSpec } from "@routerd/render";
import type { DesiredArtifact } from "@routerd/resource";
import { computeDesired, type DesiredState } from "../core/desired.js";
import { daemonSpecs, type DaemonDirs } from "../serve/daemons.js";

export interface RenderContext {
  config: RouterConfig;
  desired: DesiredState;
  /** The active resources (renderers see only what `when` lets through). */
  view: ConfigView;
  dirs: DaemonDirs;
  /** The units reconcile generates under `--supervisor systemd` (per daemon instance, per TailscaleNode). */
  generatedUnits: DesiredState["desired"];
  /** The same daemons as generated FreeBSD rc.d scripts (--supervisor rc.d). */
  generatedRcScripts: DesiredState["desired"];
}

export interface RenderedOutput {
  kind: string;
  /** What it is: a table, a file, a unit. */
  name: string;
  /** Where it goes and how it is applied. */
  target: string;
  content: string;
  /** The script a self-check feeds to its tool (`routerd check`). */
  checkInput?: string;
  /** For a block in a file: the file (under --root), so a check can see the whole file as it would be. */
  file?: { path: string; block: string; content: string };
}

export interface OutputKind {
  name: string;
  description: string;
  render(ctx: RenderContext): RenderedOutput[];
}

const ofKind = (ctx: RenderContext, kind: DesiredArtifact["kind"]) => ctx.desired.desired.filter((d) => d.kind === kind && d.action === "ensure");
const isDnsmasq = (d: DesiredArtifact) => d.attributes.validate === "dnsmasq";

/** The routerd programs the config needs a service for: the core, and each daemon it starts. */
function programsNeeded(ctx: RenderContext): ProgramSpec[] {
  const daemons = new Set(daemonSpecs(ctx.view, ctx.dirs).map((s) => s.daemon));
  return PROGRAMS.filter((p) => p.daemon === undefined || daemons.has(p.daemon));
}

function fileOutput(kind: string, ctx: RenderContext, d: DesiredArtifact): RenderedOutput {
  const path = String(d.attributes.path);
  const file = { path: rooted({ root: ctx.dirs.root }, path), block: String(d.attributes.block), content: String(d.attributes.content) };
  return { kind, name: path, target: `${file.path} (routerd's block "${file.block}"; the rest of the file is kept)`, content: upsertBlock("", file.block, file.content), file };
}

export const OUTPUT_KINDS: readonly OutputKind[] = [
  {
    name: "nft",
    description: "nftables tables (each replaced whole in one `nft -f` transaction)",
    render: (ctx) =>
      ofKind(ctx, "nft.table").map((d) => ({
        kind: "nft",
        name: d.name,
        target: `nft -f (replaces table ${String(d.attributes.family)} ${String(d.attributes.table)} atomically)`,
        content: String(d.attributes.content),
        checkInput: replaceTableScript(d.attributes),
      })),
  },
  {
    name: "dnsmasq",
    description: "the LAN services dnsmasq's config (DHCPv4, DHCPv6, router advertisements)",
    render: (ctx) => ofKind(ctx, "file").filter(isDnsmasq).map((d) => fileOutput("dnsmasq", ctx, d)),
  },
  {
    name: "files",
    description: "routerd's blocks in other files (sysctl.d, ...)",
    render: (ctx) => ofKind(ctx, "file").filter((d) => !isDnsmasq(d)).map((d) => fileOutput("files", ctx, d)),
  },
  {
    name: "sysctl",
    description: "kernel settings written to /proc/sys (and the host name)",
    render(ctx) {
      const lines = [...ofKind(ctx, "linux.sysctl").map((d) => `${String(d.attributes.key)} = ${String(d.attributes.value)}`), ...ofKind(ctx, "linux.hostname").map((d) => `kernel.hostname = ${String(d.attributes.hostname)}`)];
      return lines.length ? [{ kind: "sysctl", name: "/proc/sys", target: "written to /proc/sys/<key> (the key with dots as slashes)", content: lines.join("\n") + "\n" }] : [];
    },
  },
  {
    name: "runtime",
    description: "the derived host runtime: kernel modules routerd loads, and its systemd-networkd / systemd-resolved drop-ins (rendered as for a host that uses both)",
    render(ctx) {
      const modules = ofKind(ctx, "linux.kernelModule").map((d) => `${String(d.attributes.module)}${d.attributes.optional ? " (optional)" : ""}`);
      const dropins = ofKind(ctx, "systemd.dropin").map((d) => ({ kind: "runtime", name: d.name, target: `${rooted({ root: ctx.dirs.root }, d.name)} (whole file, then ${String(d.attributes.service)} is told)`, content: String(d.attributes.content) }));
      const loaded = modules.length ? [{ kind: "runtime", name: "kernel modules", target: "modprobe <module> (never unloaded unless routerd loaded it)", content: modules.join("\n") + "\n" }] : [];
      return [...loaded, ...dropins];
    },
  },
  {
    name: "ip",
    description: "links, addresses, routes and rules as `ip -batch` lines (as on a host that has none of them)",
    render(ctx) {
      const lines = ctx.desired.desired.filter((d) => d.action === "ensure").flatMap((d) => IP_LINES[d.kind]?.ensure(d.attributes, 0) ?? []);
      return lines.length ? [{ kind: "ip", name: "ip -batch", target: "ip -batch - (reconcile runs only the lines the plan needs)", content: lines.join("\n") + "\n" }] : [];
    },
  },
  {
    name: "daemons",
    description: "the daemons routerd serve starts: command lines and the config files it writes for them",
    render: (ctx) =>
      daemonSpecs(ctx.view, ctx.dirs).map((s) => ({
        kind: "daemons",
        name: `${s.daemon}/${s.instance}`,
        target: s.config ? s.config.path : "(command line only)",
        content: [`command: ${s.command.map((w) => (/\s/.test(w) ? JSON.stringify(w) : w)).join(" ")}`, ...(s.config && s.daemon !== "dnsmasq" ? [`config ${s.config.path}:`, s.config.content.trimEnd()] : [])].join("\n") + "\n",
      })),
  },
  {
    name: "units",
    description: "systemd units for routerd and the daemons this config needs",
    render: (ctx) => [
      ...programsNeeded(ctx).map((p) => ({ kind: "units", name: unitName(p), target: `/etc/systemd/system/${unitName(p)}`, content: renderSystemdUnit(p) })),
      // Units routerd generates per daemon instance and per TailscaleNode, written and enabled by reconcile under systemd.
      ...ctx.generatedUnits.map((d) => ({ kind: "units", name: d.name, target: `${rooted({ root: ctx.dirs.root }, `/etc/systemd/system/${d.name}`)} (with --supervisor systemd: written and ${d.attributes.enabled ? "enabled" : "disabled"} by reconcile; ledger-owned)`, content: String(d.attributes.content) })),
    ],
  },
  {
    name: "rc",
    description: "FreeBSD rc.d scripts for routerd and the daemons this config needs",
    render: (ctx) => [
      ...programsNeeded(ctx).map((p) => ({ kind: "rc", name: p.program, target: `/usr/local/etc/rc.d/${p.program.replace(/-/g, "_")}`, content: renderRcScript(p) })),
      // Scripts routerd generates per daemon instance and per TailscaleNode, each with its rc.conf.d file.
      ...ctx.generatedRcScripts.flatMap((d) => [
        { kind: "rc", name: d.name, target: `${rooted({ root: ctx.dirs.root }, `${RC_DIRS.scripts}/${d.name}`)} (with --supervisor rc.d: written by reconcile; ledger-owned)`, content: String(d.attributes.content) },
        { kind: "rc", name: `${d.name} (enable)`, target: `${rooted({ root: ctx.dirs.root }, `${RC_DIRS.conf}/${d.name}`)} (with --supervisor rc.d: written with the script; ledger-owned)`, content: String(d.attributes.enableText) },
      ]),
    ],
  },
];

export const OUTPUT_KIND_NAMES = OUTPUT_KINDS.map((k) => k.name);

/**
 * Everything reconcile would write for `config`. Runtime facts (DHCP leases, delegated prefixes) are unknown
 * here: what depends on them is left out, exactly as reconcile leaves it before a daemon has answered.
 */
export function renderContext(config: RouterConfig, dirs: DaemonDirs): RenderContext {
  const input = { config, when: new Map(), runtime: UNKNOWN_RUNTIME, stateDir: dirs.stateDir, hostRuntime: { modules: true, networkd: true, resolved: true } };
  const desired = computeDesired(input);
  const view = makeConfigView({ ...config, resources: desired.view.active }, UNKNOWN_RUNTIME);
  const generatedUnits = computeDesired({ ...input, supervisor: "systemd", daemonDirs: dirs }).desired.filter((d) => d.kind === "systemd.service");
  const generatedRcScripts = computeDesired({ ...input, supervisor: "rc.d", daemonDirs: dirs }).desired.filter((d) => d.kind === "freebsd.rcScript");
  return { config, desired, view, dirs, generatedUnits, generatedRcScripts };
}

export function renderOutputs(ctx: RenderContext, kinds: readonly string[] = OUTPUT_KIND_NAMES): RenderedOutput[] {
  return OUTPUT_KINDS.filter((k) => kinds.includes(k.name)).flatMap((k) => k.render(ctx));
}

export function outputsToText(outputs: readonly RenderedOutput[]): string {
  return outputs.map((o) => `# ==> ${o.kind}: ${o.name}\n# ${o.target}\n${o.content.endsWith("\n") ? o.content : `${o.content}\n`}`).join("\n");
}
