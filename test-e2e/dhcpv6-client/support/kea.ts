// kea-dhcp6 as the ISP's DHCPv6 server (recipe: /work/shared/TESTBEDS.md §A), driven over its control
// socket by a small Unix-socket client.
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { terminate, type Lab } from "./lab.js";

export interface KeaSubnet {
  id: number;
  iface: string;
  subnet: string;
  pdPrefix: string;
  pdPrefixLen?: number;
  delegatedLen?: number;
  addressPool?: string;
  rapidCommit?: boolean;
}

export interface KeaSettings {
  subnets: KeaSubnet[];
  timers?: { renew: number; rebind: number; preferred: number; valid: number };
  /** Server DUID as DUID-EN identifier (hex); changing it makes the server ignore Renews for the old one. */
  serverIdentifier?: string;
  optionData?: Array<{ name: string; data: string }>;
}

export const DEFAULT_TIMERS = { renew: 2, rebind: 3, preferred: 5, valid: 8 };

export class Kea {
  readonly dir: string;
  readonly socket: string;
  readonly configPath: string;
  private child: ChildProcess | undefined;
  log = "";

  constructor(
    private readonly lab: Lab,
    private readonly ns: string,
    private settings: KeaSettings,
  ) {
    this.dir = lab.path(`kea-${ns.slice(-3)}`);
    mkdirSync(this.dir, { recursive: true });
    this.socket = join(this.dir, "ctrl.sock");
    this.configPath = join(this.dir, "kea6.json");
  }

  private render(): string {
    const s = this.settings;
    const t = s.timers ?? DEFAULT_TIMERS;
    const config = {
      Dhcp6: {
        "interfaces-config": { interfaces: s.subnets.map((n) => n.iface) },
        "control-socket": { "socket-type": "unix", "socket-name": this.socket },
        "lease-database": { type: "memfile", persist: true, name: join(this.dir, "leases.csv"), "lfc-interval": 0 },
        "data-directory": this.dir,
        "server-id": { type: "EN", "enterprise-id": 32473, identifier: s.serverIdentifier ?? "0a0b0c0d", persist: false },
        "hooks-libraries": [{ library: "/usr/lib/x86_64-linux-gnu/kea/hooks/libdhcp_lease_cmds.so" }],
        "renew-timer": t.renew,
        "rebind-timer": t.rebind,
        "preferred-lifetime": t.preferred,
        "valid-lifetime": t.valid,
        "option-data": s.optionData ?? [],
        subnet6: s.subnets.map((n) => ({
          id: n.id,
          subnet: n.subnet,
          interface: n.iface,
          "rapid-commit": n.rapidCommit ?? false,
          pools: n.addressPool ? [{ pool: n.addressPool }] : [],
          "pd-pools": [{ prefix: n.pdPrefix, "prefix-len": n.pdPrefixLen ?? 40, "delegated-len": n.delegatedLen ?? 56 }],
        })),
        loggers: [{ name: "kea-dhcp6", output_options: [{ output: "stdout" }], severity: "INFO" }],
      },
    };
    return JSON.stringify(config, null, 2);
  }

  /** timeoutMs: until the control socket exists (emulated full-kernel VMs start kea far slower). */
  async start(timeoutMs = 10_000): Promise<void> {
    writeFileSync(this.configPath, this.render());
    const env = { ...process.env, KEA_PIDFILE_DIR: this.dir, KEA_LOCKFILE_DIR: this.dir };
    const child = this.lab.spawn(this.ns, ["kea-dhcp6", "-c", this.configPath], env);
    this.child = child;
    child.stdout?.on("data", (d: Buffer) => (this.log += d.toString()));
    child.stderr?.on("data", (d: Buffer) => (this.log += d.toString()));
    const deadline = Date.now() + timeoutMs;
    while (!existsSync(this.socket)) {
      if (child.exitCode !== null) throw new Error(`kea-dhcp6 exited: ${this.log}`);
      if (Date.now() > deadline) throw new Error(`kea control socket did not appear: ${this.log}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Rewrites the config with changed settings and tells kea to re-read it. */
  async reconfigure(change: Partial<KeaSettings>): Promise<void> {
    this.settings = { ...this.settings, ...change };
    writeFileSync(this.configPath, this.render());
    const r = await this.command("config-reload");
    if (r.result !== 0) throw new Error(`config-reload failed: ${JSON.stringify(r)}`);
  }

  command(command: string, args?: Record<string, unknown>): Promise<{ result: number; text?: string; arguments?: Record<string, unknown> }> {
    const request = JSON.stringify(args ? { command, arguments: args } : { command });
    return new Promise((resolve, reject) => {
      const sock = connect(this.socket);
      let data = "";
      sock.on("connect", () => sock.write(request));
      sock.on("data", (d) => (data += d.toString()));
      sock.on("error", reject);
      sock.on("end", () => {
        try {
          resolve(JSON.parse(data));
        } catch (err) {
          reject(new Error(`bad kea answer ${JSON.stringify(data)}: ${String(err)}`));
        }
      });
    });
  }

  async leases(): Promise<Array<{ "ip-address": string; "prefix-len"?: number; type: string; duid: string; "valid-lft": number }>> {
    const r = await this.command("lease6-get-all");
    return ((r.arguments?.leases as unknown[]) ?? []) as Array<{ "ip-address": string; "prefix-len"?: number; type: string; duid: string; "valid-lft": number }>;
  }

  async wipeLeases(): Promise<void> {
    for (const l of await this.leases()) {
      const r = await this.command("lease6-del", { "ip-address": l["ip-address"], type: l.type });
      if (r.result !== 0) throw new Error(`lease6-del failed: ${JSON.stringify(r)}`);
    }
  }

  async stop(): Promise<void> {
    if (this.child) await terminate(this.child);
  }

  leaseFile(): string {
    return readFileSync(join(this.dir, "leases.csv"), "utf8");
  }
}
