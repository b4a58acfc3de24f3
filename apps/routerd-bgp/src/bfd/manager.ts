// The BFD sessions of one BGPRouter: bfdd's config rendered and written (bfdd restarted when it changes),
// bfdd's session states followed on its control socket, and the tie to BGP: a session going from Up to Down
// takes that neighbor's BGP session down at once (GoBGP DisablePeer: its paths are withdrawn and the FIB
// follows); Up again re-enables it. When bfdd is gone the states are unknown and the neighbors are
// re-enabled: a BFD failure never keeps BGP down on its own.
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { writeFileAtomic } from "@routerd/resource";
import type { BFDSpec } from "@routerd/api";
import type { Logger } from "pino";
import type { CompanionProcess } from "../companion.js";
import { bfddProcess, type BfddPaths } from "./bfdd.js";
import { BfdControl, type BfdNotification, type BfdState } from "./control.js";
import { localAddressTowards } from "./local-address.js";
import { renderBfddConfig, type BfdSession } from "./render.js";

export interface BfdConfig {
  name: string;
  spec: BFDSpec;
  /** The Linux name of spec.interface (routerd serve resolves it). */
  ifname?: string;
  /** A multihop session: the BGPPeer naming this BFD has ebgpMultihop > 1 (set by parseBgpConfig). */
  multihop?: boolean;
}

export type SessionState = BfdState | "unknown" | "no-route";

export interface SessionView {
  name: string;
  peer: string;
  localAddress: string;
  multihop: boolean;
  state: SessionState;
  /** ms epoch of the last state change. */
  since: number;
  /** Up → Down transitions seen. */
  downs: number;
  /** Whether BFD holds the BGP neighbor down now. */
  bgpDisabled: boolean;
}

export interface BfdTransition {
  name: string;
  peer: string;
  from: SessionState;
  to: SessionState;
  at: number;
}

export interface BfdManagerOptions {
  router: string;
  paths: BfddPaths;
  logger: Logger;
  binary?: string;
  owner?: { file: string; match: string; graceMs: number };
  /** bfdd outlives routerd-bgp on purpose (--keep-gobgpd). */
  keep?: boolean;
  /** The BGP side. */
  bgp: { disable(address: string, why: string): Promise<void>; enable(address: string): Promise<void> };
  onTransition?: (t: BfdTransition) => void;
  onChange?: () => void;
}

function readOptional(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

export class BfdManager {
  private readonly sessions = new Map<string, SessionView>();
  private readonly disabled = new Set<string>();
  private process: CompanionProcess | undefined;
  private control: BfdControl | undefined;
  /** Right after a (re)connect bfdd replays every state: an Up then also re-enables a neighbor a previous routerd-bgp disabled. */
  private syncing = false;

  constructor(private readonly opts: BfdManagerOptions) {}

  async configure(bfd: BfdConfig[]): Promise<void> {
    if (bfd.length === 0) return this.shutdown(false);
    const sessions: BfdSession[] = [];
    const next = new Map<string, SessionView>();
    for (const b of bfd) {
      const local = await localAddressTowards(b.spec.peer, b.ifname);
      const old = this.sessions.get(b.spec.peer);
      const multihop = b.multihop === true;
      const view: SessionView = old !== undefined && old.localAddress === (local ?? "") && old.multihop === multihop
        ? { ...old, name: b.name }
        : { name: b.name, peer: b.spec.peer, localAddress: local ?? "", multihop, state: local === undefined ? "no-route" : "unknown", since: Date.now(), downs: old?.downs ?? 0, bgpDisabled: false };
      next.set(b.spec.peer, view);
      if (local === undefined) this.opts.logger.warn({ bfd: b.name, peer: b.spec.peer }, "no route to the BFD peer: session left out until one exists");
      else sessions.push({ name: b.name, spec: b.spec, localAddress: local, ...(multihop ? { multihop } : {}) });
    }
    for (const peer of this.sessions.keys()) if (!next.has(peer)) await this.enable(peer);
    this.sessions.clear();
    for (const [k, v] of next) this.sessions.set(k, v);
    const content = renderBfddConfig(this.opts.router, sessions);
    const changed = readOptional(this.opts.paths.config) !== content;
    mkdirSync(this.opts.paths.runDir, { recursive: true });
    if (changed) writeFileAtomic(this.opts.paths.config, content, 0o600);
    if (this.process === undefined) {
      this.process = bfddProcess({ paths: this.opts.paths, logger: this.opts.logger.child({ component: "bfdd" }), ...(this.opts.binary !== undefined ? { binary: this.opts.binary } : {}), ...(this.opts.owner !== undefined ? { owner: this.opts.owner } : {}), keep: this.opts.keep === true });
      const attached = await this.process.start();
      if (attached && changed) await this.restartBfdd();
    } else if (changed) {
      await this.restartBfdd();
    }
    if (this.control === undefined) {
      this.control = new BfdControl(this.opts.paths.control);
      this.control.on("connected", () => (this.syncing = true));
      this.control.on("state", (n: BfdNotification) => void this.observe(n));
      this.control.on("lost", () => void this.lost());
      this.control.start();
    }
    this.opts.onChange?.();
  }

  private async restartBfdd(): Promise<void> {
    this.opts.logger.info("bfdd config changed: restarting bfdd");
    await this.process!.stop();
    await this.process!.start();
  }

  private async observe(n: BfdNotification): Promise<void> {
    const s = this.sessions.get(n.peer);
    if (s === undefined || s.state === n.state) {
      if (s !== undefined && n.state === "up" && this.syncing) await this.enable(n.peer, true);
      return;
    }
    const from = s.state;
    s.state = n.state;
    s.since = Date.now();
    this.opts.onTransition?.({ name: s.name, peer: s.peer, from, to: n.state, at: s.since });
    if (n.state === "down" && from === "up") {
      s.downs++;
      await this.disable(s);
    } else if (n.state === "up") {
      await this.enable(n.peer, this.syncing);
    }
    this.opts.onChange?.();
  }

  private async disable(s: SessionView): Promise<void> {
    this.disabled.add(s.peer);
    s.bgpDisabled = true;
    try {
      await this.opts.bgp.disable(s.peer, `BFD/${s.name} down`);
      this.opts.logger.warn({ bfd: s.name, peer: s.peer }, "BFD down: BGP neighbor disabled");
    } catch (err) {
      this.opts.logger.error({ err, peer: s.peer }, "could not disable the BGP neighbor");
    }
  }

  /** Re-enables a neighbor BFD took down (or, after a reconnect, may have). */
  private async enable(peer: string, evenIfNotRecorded = false): Promise<void> {
    if (!this.disabled.delete(peer) && !evenIfNotRecorded) return;
    const s = this.sessions.get(peer);
    if (s !== undefined) s.bgpDisabled = false;
    try {
      await this.opts.bgp.enable(peer);
      this.opts.logger.info({ peer }, "BGP neighbor enabled");
    } catch {
      /* already enabled */
    }
  }

  private async lost(): Promise<void> {
    this.syncing = false;
    const now = Date.now();
    for (const s of this.sessions.values()) {
      if (s.state === "no-route") continue;
      if (s.state !== "unknown") this.opts.onTransition?.({ name: s.name, peer: s.peer, from: s.state, to: "unknown", at: now });
      s.state = "unknown";
      s.since = now;
    }
    for (const peer of [...this.disabled]) await this.enable(peer);
    this.opts.onChange?.();
  }

  list(): SessionView[] {
    return [...this.sessions.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  stateOf(peer: string): SessionState | undefined {
    return this.sessions.get(peer)?.state;
  }

  get bfddPid(): number | undefined {
    return this.process?.pid;
  }

  /** keep: leave bfdd running for a restarted routerd-bgp (like gobgpd). */
  async shutdown(keep: boolean): Promise<void> {
    this.control?.stop();
    this.control = undefined;
    if (!keep) {
      for (const peer of [...this.disabled]) await this.enable(peer);
      this.sessions.clear();
    }
    if (this.process !== undefined) {
      if (keep) this.process.detach();
      else {
        await this.process.stop();
        rmSync(this.opts.paths.config, { force: true });
      }
      this.process = undefined;
    } else if (!keep) {
      // No BFD configured (now): a bfdd a previous routerd-bgp left is stopped all the same.
      const stale = bfddProcess({ paths: this.opts.paths, logger: this.opts.logger });
      await stale.stop();
      rmSync(this.opts.paths.config, { force: true });
    }
  }
}
