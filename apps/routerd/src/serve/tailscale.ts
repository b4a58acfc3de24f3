// TailscaleNode under routerd serve: tailscaled is a supervised daemon (state and socket under routerd's
// directories); `tailscale up` runs once tailscaled has its socket and again only when the arguments the
// spec derives change (tailscaled keeps its settings across restarts), or when tailscale says the node is
// logged out (BackendState NeedsLogin: a state wiped by hand, a logout by hand) and an auth key file can
// log it back in — with back-off, a used-up key must not mean an `up` every cycle. The node's status comes
// from `tailscale status --json`. Under systemd or rc.d the generated unit or script runs `up` itself:
// serve only reads status.
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { TAILSCALE_DAEMON, tailscaleUpArgs, type ConfigView, type Resource, type TailscaleNodeSpec } from "@routerd/api";
import type { CommandRunner } from "@routerd/host";
import { tailscaledArgs } from "@routerd/render";
import { writeFileAtomic, type Attributes } from "@routerd/resource";
import type { Logger } from "pino";
import type { DaemonDirs, DaemonKind } from "./daemons.js";

type Dirs = Pick<DaemonDirs, "runDir" | "stateDir">;

export const tailscaleSocketIn = (dirs: Pick<Dirs, "runDir">, name: string) => join(dirs.runDir, TAILSCALE_DAEMON, `${name}.sock`);
const stateDirIn = (dirs: Pick<Dirs, "stateDir">, name: string) => join(dirs.stateDir, TAILSCALE_DAEMON, name);
/** The digest of the `up` arguments last applied (beside tailscaled's own state: it goes with it). */
const upDigestFile = (dirs: Pick<Dirs, "stateDir">, name: string) => join(stateDirIn(dirs, name), "routerd-up.digest");

const presentNodes = (view: ConfigView) => view.all<TailscaleNodeSpec>("TailscaleNode").filter((r) => r.spec.state === "present");

/** tailscaled per present node, found on PATH like routerd's other engines (keepalived, dnsmasq). */
export const tailscaleDaemonKind: DaemonKind = {
  daemon: TAILSCALE_DAEMON,
  specs: (view, dirs) =>
    presentNodes(view).map((r) => {
      const name = r.metadata.name;
      const socket = tailscaleSocketIn(dirs, name);
      return { daemon: TAILSCALE_DAEMON, instance: name, command: ["tailscaled", ...tailscaledArgs(name, stateDirIn(dirs, name), socket)], match: `--socket=${socket}` };
    }),
};

/** What `tailscale status --json` says, as the TailscaleNode's status fields (tailnetName, peerCount). */
export function tailscaleStatusFacts(json: string): Record<string, unknown> {
  const s = JSON.parse(json) as { CurrentTailnet?: { Name?: string } | null; MagicDNSSuffix?: string; Peer?: Record<string, unknown> | null };
  const tailnetName = s.CurrentTailnet?.Name ?? s.MagicDNSSuffix;
  return { ...(tailnetName ? { tailnetName } : {}), peerCount: Object.keys(s.Peer ?? {}).length };
}

/** The backend's state as `tailscale status --json` reports it (Running, Stopped, NeedsLogin, ...). */
export function tailscaleBackendState(json: string): string | undefined {
  return (JSON.parse(json) as { BackendState?: string }).BackendState;
}

/** Back-off of the re-login `up`s while a node stays logged out: 1 min doubling to 15 min (the first one at once). */
export const RELOGIN_BACKOFF = { firstMs: 60_000, maxMs: 15 * 60_000 };

const digestOf = (args: readonly string[]) => createHash("sha256").update(JSON.stringify(args)).digest("hex");

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return undefined;
  }
}

export class TailscaleNodes {
  private readonly busy = new Set<string>();
  private readonly read = new Map<string, Record<string, unknown>>();
  /** Per node logged out: when the next re-login `up` may run, and the delay after it. */
  private readonly relogin = new Map<string, { at: number; delayMs: number }>();

  constructor(
    private readonly runner: CommandRunner,
    private readonly logger: Logger,
    /** false under systemd: the generated unit runs `tailscale up` (ExecStartPost). */
    private readonly runsUp = true,
  ) {}

  /** Every cycle: `up` where the derived arguments changed, then status. Runs in the background (up may take up to its --timeout). */
  sync(view: ConfigView, dirs: Dirs): void {
    const nodes = presentNodes(view);
    for (const name of [...this.read.keys()]) if (!nodes.some((r) => r.metadata.name === name)) this.read.delete(name);
    for (const r of nodes) {
      const name = r.metadata.name;
      if (this.busy.has(name)) continue;
      this.busy.add(name);
      void this.syncOne(r, dirs)
        .catch((err: unknown) => this.logger.warn({ err, node: name }, "tailscale status not read"))
        .finally(() => this.busy.delete(name));
    }
  }

  /** Status fields per `TailscaleNode/<name>`, as last read. */
  facts(): Map<string, Record<string, unknown>> {
    return new Map([...this.read].map(([name, f]) => [`TailscaleNode/${name}`, f]));
  }

  /** Before tailscaled goes for good (state absent, node removed): the node leaves its tailnet. Best effort. */
  async logout(attrs: Attributes, dirs: Dirs): Promise<void> {
    const l = attrs.logout as { command?: string } | undefined;
    if (!l?.command) return;
    const socket = tailscaleSocketIn(dirs, String(attrs.instance));
    if (!existsSync(socket)) return;
    const r = await this.runner.run(l.command, [`--socket=${socket}`, "logout"]);
    if (r.code !== 0) this.logger.warn({ node: attrs.instance, error: (r.stderr || r.stdout).trim() }, "tailscale logout failed; removing the node anyway");
    else this.logger.info({ node: attrs.instance }, "tailscale node logged out");
  }

  private async syncOne(r: Resource<TailscaleNodeSpec>, dirs: Dirs): Promise<void> {
    const name = r.metadata.name;
    const socket = tailscaleSocketIn(dirs, name);
    if (!existsSync(socket)) return; // tailscaled is not up (yet)
    let json = await this.status(socket);
    if (this.runsUp) {
      const loggedOut = json !== undefined && tailscaleBackendState(json) === "NeedsLogin";
      if (!loggedOut) this.relogin.delete(name);
      const relogin = loggedOut && this.mayRelogin(r, socket);
      if (await this.up(name, socket, tailscaleUpArgs(r.spec), dirs, relogin)) json = await this.status(socket);
    }
    if (json !== undefined) this.read.set(name, tailscaleStatusFacts(json));
    else this.read.delete(name);
  }

  private async status(socket: string): Promise<string | undefined> {
    const st = await this.runner.run("tailscale", [`--socket=${socket}`, "status", "--json"]);
    return st.code === 0 ? st.stdout : undefined;
  }

  /** A logged-out node is logged back in by `up` only with a key file, at most as often as the back-off allows. */
  private mayRelogin(r: Resource<TailscaleNodeSpec>, socket: string): boolean {
    const name = r.metadata.name;
    const now = Date.now();
    const next = this.relogin.get(name);
    if (next && now < next.at) return false;
    // The first re-login at once, each later one after twice the previous wait.
    const delayMs = next ? Math.min(next.delayMs * 2, RELOGIN_BACKOFF.maxMs) : RELOGIN_BACKOFF.firstMs;
    this.relogin.set(name, { at: now + delayMs, delayMs });
    if (!r.spec.authKeyFile) {
      if (!next) this.logger.warn({ node: name }, `tailscale node is logged out and has no authKeyFile: log it in with \`tailscale --socket=${socket} up\``);
      return false;
    }
    this.logger.warn({ node: name }, "tailscale node is logged out (NeedsLogin): running tailscale up again");
    return true;
  }

  /** `up` when the derived arguments changed since the last one applied, or `force`d; true when it ran and succeeded. */
  private async up(name: string, socket: string, args: string[], dirs: Dirs, force: boolean): Promise<boolean> {
    const digest = digestOf(args);
    if (!force && readText(upDigestFile(dirs, name)) === digest) return false;
    const r = await this.runner.run("tailscale", [`--socket=${socket}`, ...args]);
    if (r.code !== 0) {
      this.logger.warn({ node: name, error: (r.stderr || r.stdout).trim() }, "tailscale up failed; retried next cycle");
      return false;
    }
    writeFileAtomic(upDigestFile(dirs, name), digest + "\n", 0o600);
    this.logger.info({ node: name, relogin: force }, "tailscale up applied");
    return true;
  }
}
