// Generated service artifacts: routerd-*.service unit files routerd writes into <root>/etc/systemd/system and
// their enablement (the multi-user.target.wants link). On the real root systemd is told (daemon-reload,
// enable --now, disable --now); under a test root only the files change. Nothing but routerd-*.service
// is ever written or removed, whatever the ledger says.
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { isRouterdUnit, writeFileAtomic, type Attributes, type ObservedArtifact } from "@routerd/resource";
import { rooted, type HostContext } from "./context.js";

export const SYSTEMD_UNIT_DIR = "/etc/systemd/system";
const WANTS = `${SYSTEMD_UNIT_DIR}/multi-user.target.wants`;

const realRoot = (ctx: HostContext) => ctx.root === "/" || ctx.root === "";

function linkExists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Every .service file in /etc/systemd/system (routerd's and others', for adoption and look-alikes), with its enablement. */
export function observeSystemdUnits(ctx: HostContext): ObservedArtifact[] {
  const dir = rooted(ctx, SYSTEMD_UNIT_DIR);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".service"))
    .map((unit) => ({ kind: "systemd.service" as const, name: unit, attributes: { unit, content: readFileSync(join(dir, unit), "utf8"), enabled: linkExists(rooted(ctx, `${WANTS}/${unit}`)) } }));
}

async function systemctl(ctx: HostContext, args: string[]): Promise<void> {
  const r = await ctx.runner.run("systemctl", args);
  if (r.code !== 0) throw new Error(`systemctl ${args.join(" ")}: ${(r.stderr || r.stdout).trim() || `exit ${r.code}`}`);
}

function guard(unit: string): void {
  if (!isRouterdUnit(unit)) throw new Error(`refusing to touch ${unit}: routerd writes and removes only routerd-*.service units`);
}

export async function ensureUnit(ctx: HostContext, attrs: Attributes): Promise<void> {
  const unit = String(attrs.unit);
  guard(unit);
  const file = rooted(ctx, `${SYSTEMD_UNIT_DIR}/${unit}`);
  const content = String(attrs.content);
  const changed = !existsSync(file) || readFileSync(file, "utf8") !== content;
  if (changed) writeFileAtomic(file, content, 0o644);
  const wants = rooted(ctx, `${WANTS}/${unit}`);
  const enable = attrs.enabled === true;
  if (enable && !linkExists(wants)) {
    mkdirSync(rooted(ctx, WANTS), { recursive: true });
    symlinkSync(`${SYSTEMD_UNIT_DIR}/${unit}`, wants);
  } else if (!enable && linkExists(wants)) rmSync(wants);
  if (!realRoot(ctx)) return;
  if (changed) await systemctl(ctx, ["daemon-reload"]);
  if (enable) await systemctl(ctx, [changed ? "restart" : "start", unit]);
  else await systemctl(ctx, ["stop", unit]);
}

/** `logout` in the attributes: a node that goes away leaves its tailnet first (best effort: it may never have joined). */
export async function logout(ctx: HostContext, attrs: Attributes): Promise<void> {
  const l = attrs.logout as { command?: string; socket?: string } | undefined;
  if (!l?.command || !l.socket || !existsSync(l.socket)) return;
  await ctx.runner.run(l.command, [`--socket=${l.socket}`, "logout"]);
}

export async function removeUnit(ctx: HostContext, attrs: Attributes): Promise<void> {
  const unit = String(attrs.unit);
  guard(unit);
  if (realRoot(ctx)) {
    await logout(ctx, attrs);
    await systemctl(ctx, ["disable", "--now", unit]);
  }
  rmSync(rooted(ctx, `${WANTS}/${unit}`), { force: true });
  rmSync(rooted(ctx, `${SYSTEMD_UNIT_DIR}/${unit}`), { force: true });
  if (realRoot(ctx)) await systemctl(ctx, ["daemon-reload"]);
}
