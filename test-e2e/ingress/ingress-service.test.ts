// IngressService through `routerd serve` and routerd-healthcheck on a real kernel: a WAN client reaches
// three real TCP backends on the LAN through the router's address. Killing a backend takes it out of new
// connections within interval × unhealthyThreshold + 1 s while an established connection to a healthy
// backend lives on; sourceHash keeps each client on its backend (also when another one fails); with every
// backend down the service is rejected or dropped as configured.
import { spawn, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { killAll } from "../lib/daemons.js";
import { Netns, tempDir } from "../lib/netns.js";
import { routerctl, startServe, until, type ServeProcess } from "../lib/serve.js";

const PEER = new URL("./peer.mjs", import.meta.url).pathname;
const VIP = "203.0.113.1";
const PORT = 8080;
const BACKENDS = { web1: "192.168.60.11", web2: "192.168.60.12", web3: "192.168.60.13" } as const;
type Backend = keyof typeof BACKENDS;
const CLIENTS = Array.from({ length: 12 }, (_, i) => `203.0.113.${21 + i}`);
const INTERVAL_MS = 1000;
const UNHEALTHY_THRESHOLD = 2;

let router: Netns;
let wan: Netns;
let lan: Netns;
let tmp: ReturnType<typeof tempDir>;
let serve: ServeProcess;
const servers = new Map<Backend, ChildProcess>();
const children: ChildProcess[] = [];

function writeConfig(policy: { selection: string; onNoHealthyBackends: string }): void {
  const res = (apiVersion: string, kind: string, name: string, spec: unknown) => ({ apiVersion, kind, metadata: { name }, spec });
  const NET = "net.routerd.net/v1alpha1";
  const resources = [
    res(NET, "Interface", "wan", { ifname: "wan0" }),
    res(NET, "Interface", "lan", { ifname: "lan0" }),
    res(NET, "IPv4StaticAddress", "wan-address", { interface: "wan", address: `${VIP}/24` }),
    res(NET, "IPv4StaticAddress", "lan-address", { interface: "lan", address: "192.168.60.1/24" }),
    res("system.routerd.net/v1alpha1", "SysctlProfile", "router", { profile: "router-linux" }),
    res("firewall.routerd.net/v1alpha1", "IngressService", "web", {
      listen: { interface: "wan", address: VIP, protocol: "tcp", port: PORT },
      backends: Object.entries(BACKENDS).map(([name, address]) => ({ name, address, port: 8000 })),
      healthCheck: { protocol: "tcp", interval: `${INTERVAL_MS}ms`, timeout: "500ms", healthyThreshold: 1, unhealthyThreshold: UNHEALTHY_THRESHOLD },
      policy,
    }),
  ];
  writeFileSync(join(tmp.dir, "router.yaml"), JSON.stringify({ apiVersion: "routerd.net/v1alpha1", kind: "Router", metadata: { name: "ingress" }, spec: { resources } }, null, 2));
}

function startBackend(name: Backend): void {
  const child = spawn("ip", ["netns", "exec", lan.name, process.execPath, PEER, "server", BACKENDS[name], "8000", name], { stdio: "ignore" });
  servers.set(name, child);
  children.push(child);
}

function killBackend(name: Backend): void {
  servers.get(name)?.kill("SIGKILL");
  servers.delete(name);
}

/** `count` new connections from `source` (one after another): the backend names that answered, or error codes. */
function connectMany(count: number, source?: string, timeoutMs = 2000): string[] {
  const args = [PEER, "connect", VIP, String(PORT), String(count), ...(source ? [source, String(timeoutMs)] : ["", String(timeoutMs)])];
  return JSON.parse(wan.exec(process.execPath, args).stdout) as string[];
}

const natTable = () => router.exec("nft", ["list", "table", "ip", "routerd_nat"], { allowFail: true }).stdout;
const inNat = (name: Backend) => natTable().includes(`${BACKENDS[name]} . 8000`) || natTable().includes(`${BACKENDS[name]}:8000`);
const probes = () => (routerctl(router, ["health"], serve.runDir).json as { name: string; phase: string }[] | undefined) ?? [];

interface IngressStatus {
  healthyBackends: number;
  activeBackends: { name: string }[];
  backends: { name: string; healthy: boolean; state: string }[];
}
/** IngressService/web's published status, as `routerctl status --json` shows it. */
const ingressStatus = () => {
  const st = routerctl(router, ["status"], serve.runDir).json as { resources?: { name: string; details?: IngressStatus }[] } | undefined;
  return st?.resources?.find((r) => r.name === "IngressService/web")?.details;
};

async function allHealthy(): Promise<void> {
  await until("every backend probe Healthy", () => probes().filter((p) => p.name.startsWith("ingress.web.") && p.phase === "Healthy").length === 3, 60_000, 200);
  await until("every backend in the nat table", () => (Object.keys(BACKENDS) as Backend[]).every(inNat), 40_000, 100);
}

beforeAll(async () => {
  tmp = tempDir("routerd-ingress-");
  router = Netns.create("rd-in-r");
  wan = Netns.create("rd-in-w");
  lan = Netns.create("rd-in-l");
  router.veth("wan0", "up0", wan);
  router.veth("lan0", "srv0", lan);
  wan.ip("link set up0 up");
  for (const a of ["203.0.113.2", ...CLIENTS]) wan.ip(`addr add ${a}/24 dev up0`);
  lan.ip("link set srv0 up");
  for (const a of Object.values(BACKENDS)) lan.ip(`addr add ${a}/24 dev srv0`);
  lan.ip("route add default via 192.168.60.1");
  for (const b of Object.keys(BACKENDS) as Backend[]) startBackend(b);
  // A listener on the router itself: whatever routerd does not DNAT, drop or reject reaches it and answers
  // "router", so a reject or drop is told apart from the kernel's own answer.
  children.push(spawn("ip", ["netns", "exec", router.name, process.execPath, PEER, "server", VIP, String(PORT), "router"], { stdio: "ignore" }));
  writeConfig({ selection: "random", onNoHealthyBackends: "reject" });
  const dirs = { stateDir: join(tmp.dir, "state"), runDir: join(tmp.dir, "run"), root: join(tmp.dir, "root") };
  serve = startServe(router, { config: join(tmp.dir, "router.yaml"), ...dirs });
  await allHealthy();
});

afterAll(async () => {
  for (const c of children) c.kill("SIGKILL");
  await serve?.stop("SIGKILL");
  if (serve) await killAll(serve.runDir);
  for (const ns of [router, wan, lan]) ns?.destroy();
  tmp?.cleanup();
});

describe("IngressService on a real kernel", () => {
  it("spreads new connections over the three backends (random)", () => {
    const seen = new Set(connectMany(30));
    expect([...seen].sort()).toEqual(["web1", "web2", "web3"]);
  });

  it("takes a killed backend out of new connections within interval × unhealthyThreshold + 1 s; an established connection keeps its backend", async () => {
    const hold = spawn("ip", ["netns", "exec", wan.name, process.execPath, PEER, "hold", VIP, String(PORT)], { stdio: ["pipe", "pipe", "ignore"] });
    children.push(hold);
    let output = "";
    hold.stdout!.on("data", (b: Buffer) => (output += b.toString()));
    const held = await until("the held connection's backend", () => /^(web\d)\n/.exec(output)?.[1] as Backend | undefined, 5000, 20);
    const victim = (Object.keys(BACKENDS) as Backend[]).find((b) => b !== held)!;

    killBackend(victim);
    try {
      const killedAt = Date.now();
      await until(`${victim} out of the nat table`, () => !inNat(victim), 40_000, 50);
      const elapsed = Date.now() - killedAt;
      // Split the time so a failure says whether the probe or routerd's reconcile was slow.
      const probe = probes().find((p) => p.name === `ingress.web.${victim}`) as { details?: { since?: string } } | undefined;
      const unhealthyAfter = Date.parse(probe?.details?.since ?? "") - killedAt;
      expect(elapsed, `probe Unhealthy after ${unhealthyAfter} ms, table changed after ${elapsed} ms`).toBeLessThanOrEqual(INTERVAL_MS * UNHEALTHY_THRESHOLD + 1000);

      // serve publishes the backends' health as IngressService/web's status fields (its details).
      const web = await until("IngressService/web publishes the dead backend", () => {
        const r = ingressStatus();
        return r?.healthyBackends === 2 ? r : undefined;
      }, 10_000, 100);
      expect(web.backends.find((b) => b.name === victim)).toMatchObject({ healthy: false, state: "Unhealthy" });
      expect(web.activeBackends.map((b) => b.name)).not.toContain(victim);

      const after = connectMany(30);
      expect(after.filter((n) => n === victim || !n.startsWith("web"))).toEqual([]);
      expect(new Set(after).size).toBe(2);
      // The table was replaced while the held connection was open: conntrack kept it on its backend.
      hold.stdin!.write("still-there\n");
      await until("the held connection answers", () => output.includes(`${held}:still-there\n`), 5000, 20);
      hold.stdin!.end();

      const events = routerctl(router, ["events", "--topic", "ingress"], serve.runDir);
      expect(events.stdout).toContain(`"resource":"IngressService/web"`);
    } finally {
      startBackend(victim);
      await allHealthy();
    }
  });

  it("sourceHash keeps every client on one backend, also when another backend fails", async () => {
    writeConfig({ selection: "sourceHash", onNoHealthyBackends: "reject" });
    await until("the nat table hashes the source", () => natTable().includes("jhash ip saddr"), 40_000, 100);
    const before = new Map(CLIENTS.map((c) => [c, connectMany(4, c)]));
    for (const [client, names] of before) expect(new Set(names).size, `${client}: ${names.join(",")}`).toBe(1);
    const backendOf = new Map([...before].map(([c, names]) => [c, names[0] as Backend]));
    expect(new Set(backendOf.values()).size).toBeGreaterThan(1);

    const victim = [...backendOf.values()][0]!;
    killBackend(victim);
    try {
      await until(`${victim} out of the nat table`, () => !inNat(victim), 40_000, 50);
      for (const client of CLIENTS) {
        const names = connectMany(3, client);
        expect(new Set(names).size, client).toBe(1);
        if (backendOf.get(client) !== victim) expect(names[0], `${client} stays on its backend`).toBe(backendOf.get(client));
        else expect(names[0], `${client} moved`).not.toBe(victim);
      }
    } finally {
      startBackend(victim);
      await allHealthy();
    }
  });

  it("with every backend down, rejects (onNoHealthyBackends: reject) or drops (drop)", async () => {
    for (const b of Object.keys(BACKENDS) as Backend[]) killBackend(b);
    await until("no backend in the nat table", () => !(Object.keys(BACKENDS) as Backend[]).some(inNat), 40_000, 100);
    // Not the router's own listener: the filter table answers with a reset.
    expect(connectMany(1, CLIENTS[0], 2000)).toEqual(["ECONNREFUSED"]);

    writeConfig({ selection: "sourceHash", onNoHealthyBackends: "drop" });
    await until("the filter table drops the service", () => /tcp dport 8080 drop/.test(router.exec("nft", ["list", "table", "inet", "routerd_filter"]).stdout), 40_000, 100);
    expect(connectMany(1, CLIENTS[0], 1500)).toEqual(["TIMEOUT"]);

    // Back up: new connections reach the backends again, and never the router's listener.
    for (const b of Object.keys(BACKENDS) as Backend[]) startBackend(b);
    await allHealthy();
    expect(connectMany(5, CLIENTS[1]).every((n) => n.startsWith("web"))).toBe(true);
  });
});
