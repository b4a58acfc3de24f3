// Generated FreeBSD rc.d scripts: routerd_* scripts routerd writes into <root>/usr/local/etc/rc.d, each
// enabled by its own whole file <root>/etc/rc.conf.d/<name> (rc.subr's load_rc_config reads it), so both are
// ledger-owned files and nobody's rc.conf is edited. On the real root (a FreeBSD host) rc is told with
// service(8): start or restart after a write, onestop before a removal; under a test root only the files change.
// Nothing but routerd_* scripts is ever written or removed, whatever the ledger says.
import { existsSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { isRouterdRcScript, writeFileAtomic, type Attributes, type ObservedArtifact } from "@routerd/resource";
import { rooted, type HostContext } from "./context.js";
import { logout } from "./units.js";

export const RC_SCRIPT_DIR = "/usr/local/etc/rc.d";
export const RC_CONF_DIR = "/etc/rc.conf.d";

const realRoot = (ctx: HostContext) => ctx.root === "/" || ctx.root === "";

/** The script's own rc.conf.d file; its text (`<name>_enable="YES"`) is rendered by packages/render. */
const enableFile = (ctx: HostContext, script: string) => rooted(ctx, `${RC_CONF_DIR}/${script}`);

const readIfExists = (path: string) => (existsSync(path) ? readFileSync(path, "utf8") : undefined);

/** Every script in /usr/local/etc/rc.d (routerd's and others', for adoption and look-alikes), with its enablement. */
export function observeRcScripts(ctx: HostContext): ObservedArtifact[] {
  const dir = rooted(ctx, RC_SCRIPT_DIR);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => statSync(join(dir, f)).isFile())
    .map((script) => {
      const enableText = readIfExists(enableFile(ctx, script));
      return { kind: "freebsd.rcScript" as const, name: script, attributes: { script, content: readFileSync(join(dir, script), "utf8"), enabled: enableText !== undefined, ...(enableText !== undefined ? { enableText } : {}) } };
    });
}

async function service(ctx: HostContext, args: string[]): Promise<void> {
  const r = await ctx.runner.run("service", args);
  if (r.code !== 0) throw new Error(`service ${args.join(" ")}: ${(r.stderr || r.stdout).trim() || `exit ${r.code}`}`);
}

function guard(script: string): void {
  if (!isRouterdRcScript(script)) throw new Error(`refusing to touch ${script}: routerd writes and removes only routerd_* rc.d scripts`);
}

export async function ensureRcScript(ctx: HostContext, attrs: Attributes): Promise<void> {
  const script = String(attrs.script);
  guard(script);
  const file = rooted(ctx, `${RC_SCRIPT_DIR}/${script}`);
  const content = String(attrs.content);
  const changed = !existsSync(file) || readFileSync(file, "utf8") !== content;
  if (changed) writeFileAtomic(file, content, 0o755);
  const enable = attrs.enabled === true;
  const conf = enableFile(ctx, script);
  if (enable && readIfExists(conf) !== attrs.enableText) writeFileAtomic(conf, String(attrs.enableText), 0o644);
  else if (!enable) rmSync(conf, { force: true });
  if (!realRoot(ctx)) return;
  if (enable) await service(ctx, [script, changed ? "restart" : "start"]);
  else await service(ctx, [script, "onestop"]);
}

export async function removeRcScript(ctx: HostContext, attrs: Attributes): Promise<void> {
  const script = String(attrs.script);
  guard(script);
  if (realRoot(ctx)) {
    await logout(ctx, attrs);
    // onestop: stops it whatever rc.conf says; a script that is not running is not an error here.
    await ctx.runner.run("service", [script, "onestop"]);
  }
  rmSync(enableFile(ctx, script), { force: true });
  rmSync(rooted(ctx, `${RC_SCRIPT_DIR}/${script}`), { force: true });
}
