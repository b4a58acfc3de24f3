// routerd-pppoe-client inside the lab VM, started directly (no routerd serve) and asked over its socket.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { connectDaemon, daemonSocketPath } from "@routerd/rpc";
import type { ChildProcess } from "node:child_process";
import type { Lab } from "../../lib/lab.js";
import { REPO } from "../../lib/netns.js";

export const PPPOE_CLIENT = join(REPO, "apps/routerd-pppoe-client/bin/routerd-pppoe-client.js");

export interface SessionStatus {
  phase: string;
  message: string;
  details: Record<string, unknown>;
}

export class PppoeClientDaemon {
  readonly runDir: string;
  readonly stateDir: string;
  readonly configPath: string;
  child?: ChildProcess;
  readonly output: string[] = [];

  constructor(
    private readonly lab: Lab,
    readonly ns: string,
    readonly instance: string,
  ) {
    this.runDir = lab.path(`run-${instance}`);
    this.stateDir = lab.path(`state-${instance}`);
    this.configPath = lab.path(`${instance}.json`);
  }

  writeConfig(config: Record<string, unknown>): void {
    writeFileSync(this.configPath, JSON.stringify(config), { mode: 0o600 });
  }

  start(): void {
    this.child = this.lab.spawn(this.ns, [process.execPath, PPPOE_CLIENT, "--config", this.configPath, "--instance", this.instance, "--run-dir", this.runDir, "--state-dir", this.stateDir, "--log-level", "debug"]);
    this.child.stdout!.on("data", (b: Buffer) => this.output.push(b.toString()));
    this.child.stderr!.on("data", (b: Buffer) => this.output.push(b.toString()));
  }

  get socket(): string {
    return daemonSocketPath(this.runDir, "pppoe-client", this.instance);
  }

  async status(): Promise<SessionStatus | undefined> {
    let conn;
    try {
      conn = await connectDaemon(this.socket, { connectTimeoutMs: 5000, callTimeoutMs: 10000 });
      const s = await conn.getStatus();
      const r = s.resources.find((x) => x.name === this.instance);
      return r ? { phase: r.phase, message: r.message, details: r.detailsJson ? (JSON.parse(r.detailsJson) as Record<string, unknown>) : {} } : undefined;
    } catch {
      return undefined;
    } finally {
      conn?.close();
    }
  }

  /** The status once the session is up with IPv4 (IPCP and IPV6CP finish in either order). */
  async upWithIpv4(): Promise<SessionStatus | undefined> {
    const s = await this.status();
    return s?.phase === "Up" && s.details.currentAddress ? s : undefined;
  }

  async command(name: string): Promise<{ ok: boolean; message: string }> {
    const conn = await connectDaemon(this.socket, { connectTimeoutMs: 10000 });
    try {
      return await conn.command(name);
    } finally {
      conn.close();
    }
  }

  /** The pppoe.session.* topics the daemon emitted, oldest first. */
  async topics(): Promise<string[]> {
    const conn = await connectDaemon(this.socket, { connectTimeoutMs: 10000 });
    const out: string[] = [];
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), 1500);
    try {
      for await (const e of conn.watchEvents({ afterSeq: 0, topicPrefixes: ["pppoe.session."], signal: stop.signal })) out.push(e.topic);
    } catch {
      /* aborted */
    } finally {
      clearTimeout(timer);
      conn.close();
    }
    return out;
  }
}
