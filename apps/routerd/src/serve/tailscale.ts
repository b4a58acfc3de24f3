// TailscaleNode under routerd serve: tailscaled is a supervised daemon (state and socket under routerd's
// directories); `tailscale up` runs once tailscaled has its socket and again only when the arguments the
// spec derives change (tailscaled keeps its settings across restarts); the node's status comes from
// `tailscale status --json`. Under systemd the generated unit runs `up` itself: serve only reads status.
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
    if (this.runsUp) await this.up(name, socket, tailscaleUpArgs(r.spec), dirs);
    const st = await this.runner.run("tailscale", [`--socket=${socket}`, "status", "--json"]);
    if (st.code === 0) this.read.set(name, tailscaleStatusFacts(st.stdout));
    else this.read.delete(name);
  }

  private async up(name: string, socket: string, args: string[], dirs: Dirs): Promise<void> {
    const digest = digestOf(args);
    if (readText(upDigestFile(dirs, name)) === digest) return;
    const r = await this.runner.run("tailscale", [`--socket=${socket}`, ...args]);
    if (r.code !== 0) {
      this.logger.warn({ node: name, error: (r.stderr || r.stdout).trim() }, "tailscale up failed; retried next cycle");
      return;
    }
    writeFileAtomic(upDigestFile(dirs, name), digest + "\n", 0o600);
    this.logger.info({ node: name }, "tailscale up applied");
  }
}
