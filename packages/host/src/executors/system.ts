// Direct executors: sysctl and hostname through /proc, files through atomic block edits.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROUTERD_ROUTE_PROTOCOLS, RT_PROTOS_PATH, artifactNames, rtProtosContent, writeFileAtomic, type Attributes } from "@routerd/resource";
import { rooted, type HostContext } from "../context.js";
import { removeBlock, upsertBlock } from "../file-blocks.js";
import { routeProtocolMarker, sysctlPath } from "../observers/system.js";

const DEFAULT_KEY = /^net\.(ipv4|ipv6)\.conf\.default\.([a-z0-9_]+)$/;

/**
 * `net.ipv4.conf.default.X` is for links created later, but the kernel also copies a new value to every
 * existing link that never had X written (devinet_copy_dflt_conf). Those links keep what they had: a
 * default must not change a link behind the back of whatever set it (routerd's own per-link keys among
 * them, which the plan saw as already right).
 */
export function writeSysctl(attrs: Attributes): void {
  const key = String(attrs.key);
  const m = DEFAULT_KEY.exec(key);
  const keep = m ? linkValues(m[1]!, m[2]!) : [];
  try {
    writeFileSync(sysctlPath(key), `${String(attrs.value)}\n`);
  } catch (err) {
    // An optional key this kernel does not have is skipped (plan says so).
    if (attrs.optional && (err as NodeJS.ErrnoException).code === "ENOENT") return;
    throw err;
  }
  for (const [path, value] of keep) {
    if (readFileSync(path, "utf8") !== value) writeFileSync(path, value);
  }
}

function linkValues(family: string, leaf: string): [string, string][] {
  const dir = `/proc/sys/net/${family}/conf`;
  const out: [string, string][] = [];
  for (const link of readdirSync(dir)) {
    if (link === "all" || link === "default") continue;
    try {
      const path = join(dir, link, leaf);
      out.push([path, readFileSync(path, "utf8")]);
    } catch {
      /* a link that went away, or a leaf it does not have */
    }
  }
  return out;
}

export function writeHostname(attrs: Attributes): void {
  writeFileSync("/proc/sys/kernel/hostname", String(attrs.hostname));
}

/** Checks a candidate file before it replaces the real one; throws with the tool's complaint. */
const VALIDATORS: Record<string, (ctx: HostContext, candidate: string) => Promise<void>> = {
  async dnsmasq(ctx, candidate) {
    const r = await ctx.runner.run("dnsmasq", ["--test", `--conf-file=${candidate}`]);
    if (r.code !== 0) throw new Error(`dnsmasq --test rejected the new config (the old one stays): ${(r.stderr || r.stdout).trim()}`);
  },
};

/** Claims a (protocol, table) for a daemon's routes: registers the protocol with iproute2, records the claim. */
export function claimRouteProtocol(ctx: HostContext, attrs: Attributes): void {
  const { protocol, table } = attrs as { protocol: number; table: number };
  const path = rooted(ctx, RT_PROTOS_PATH);
  const content = rtProtosContent();
  if (!existsSync(path) || readFileSync(path, "utf8") !== content) writeFileAtomic(path, content);
  writeFileAtomic(routeProtocolMarker(ctx, artifactNames.routeProtocol(protocol, table)), `${JSON.stringify({ protocol, table })}\n`);
}

/** Deletes every route of this protocol in this table, IPv4 and IPv6 (nothing of any other protocol), then the claim. */
export async function flushRouteProtocol(ctx: HostContext, attrs: Attributes): Promise<void> {
  const { protocol, table } = attrs as { protocol: number; table: number };
  if (ROUTERD_ROUTE_PROTOCOLS[protocol] === undefined) throw new Error(`refusing to flush protocol ${protocol}: not one of routerd's`);
  for (const family of ["-4", "-6"]) {
    const r = await ctx.runner.run("ip", [family, "route", "flush", "table", String(table), "proto", String(protocol)]);
    if (r.code !== 0) throw new Error(`ip ${family} route flush table ${table} proto ${protocol}: ${r.stderr.trim()}`);
  }
  rmSync(routeProtocolMarker(ctx, artifactNames.routeProtocol(protocol, table)), { force: true });
}

/**
 * What makes a program take a changed block (run only after routerd changed it). Services of the host are
 * restarted only when routerd manages the real root: a test root has no systemd of its own.
 */
const RELOADERS: Record<string, (ctx: HostContext) => Promise<void>> = {
  async chrony(ctx) {
    const socket = rooted(ctx, "/run/chrony/chronyd.sock");
    if (!existsSync(socket)) return; // not running: it reads the file when it starts
    await mustRun(ctx, "chronyc", ["-h", socket, "reload", "sources"]);
  },
  "systemd-timesyncd": (ctx) => restartService(ctx, "systemd-timesyncd.service"),
  ntpd: (ctx) => restartService(ctx, "ntpsec.service"),
};

async function mustRun(ctx: HostContext, cmd: string, args: string[]): Promise<void> {
  const r = await ctx.runner.run(cmd, args);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(" ")}: ${(r.stderr || r.stdout).trim() || `exit ${r.code}`}`);
}

async function restartService(ctx: HostContext, unit: string): Promise<void> {
  if (ctx.root !== "/" && ctx.root !== "") return;
  await mustRun(ctx, "systemctl", ["try-restart", unit]);
}

async function reloadAfterChange(ctx: HostContext, attrs: Attributes): Promise<void> {
  if (attrs.reload === undefined) return;
  const reload = RELOADERS[String(attrs.reload)];
  if (!reload) throw new Error(`unknown reload ${String(attrs.reload)}`);
  try {
    await reload(ctx);
  } catch (err) {
    throw new Error(`${String(attrs.path)} was written, but the reload failed: ${(err as Error).message}`);
  }
}

export async function writeFileBlock(ctx: HostContext, attrs: Attributes): Promise<void> {
  const path = rooted(ctx, String(attrs.path));
  const old = existsSync(path) ? readFileSync(path, "utf8") : "";
  const mode = existsSync(path) ? statSync(path).mode & 0o7777 : 0o644;
  const next = upsertBlock(old, String(attrs.block), String(attrs.content));
  const validate = attrs.validate === undefined ? undefined : VALIDATORS[String(attrs.validate)];
  if (attrs.validate !== undefined && !validate) throw new Error(`unknown validator ${String(attrs.validate)}`);
  if (validate) {
    const dir = mkdtempSync(join(tmpdir(), "routerd-validate-"));
    try {
      writeFileSync(join(dir, "candidate"), next);
      await validate(ctx, join(dir, "candidate"));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  writeFileAtomic(path, next, mode);
  if (next !== old) await reloadAfterChange(ctx, attrs);
}

export async function deleteFileBlock(ctx: HostContext, attrs: Attributes): Promise<void> {
  const path = rooted(ctx, String(attrs.path));
  if (!existsSync(path)) return;
  const old = readFileSync(path, "utf8");
  const next = removeBlock(old, String(attrs.block));
  if (next === old) return;
  writeFileAtomic(path, next, statSync(path).mode & 0o7777);
  await reloadAfterChange(ctx, attrs);
}
