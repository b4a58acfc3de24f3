// Behaviour 6: kill -9 at random points of a large reconcile, many times. The ledger always parses, a rerun
// converges, and nothing routerd created is missing from the ledger.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ledger } from "@routerd/resource";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { res, routerYaml, type ResourceDoc } from "../lib/config.js";
import { ROUTERD } from "../lib/netns.js";
import { RouterScenario } from "../lib/scenario.js";

let s: RouterScenario;
beforeAll(() => {
  s = new RouterScenario();
});
afterAll(() => s.destroy());

function bigConfig(routes: number, forwards: number): ResourceDoc[] {
  const out: ResourceDoc[] = [
    res("Interface", "wan", { ifname: "wan0" }),
    res("Interface", "lan", { ifname: "lan0" }),
    res("IPv4StaticAddress", "wan-address", { interface: "wan", address: "203.0.113.2/24" }),
    res("IPv4StaticAddress", "lan-address", { interface: "lan", address: "192.168.50.1/24" }),
    res("NAT44Rule", "masq", { egressInterface: "wan", sourceRanges: ["192.168.50.0/24"] }),
  ];
  for (let i = 0; i < routes; i++) out.push(res("IPv4Route", `r${i}`, { destination: `10.200.${i >> 8}.${i & 255}/32`, device: "lan" }));
  for (let i = 0; i < forwards; i++) {
    out.push(res("PortForward", `pf${i}`, { listen: { interface: "wan", protocol: "tcp", port: 10000 + i }, target: { address: "192.168.50.10", port: 80 } }));
  }
  return out;
}

function runAndKill(config: string, afterMs: number): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn("ip", ["netns", "exec", s.ns.name, process.execPath, ROUTERD, "reconcile", "--once", "--config", config, "--state-dir", s.stateDir, "--root", s.root], { stdio: "ignore" });
    const timer = setTimeout(() => child.kill("SIGKILL"), afterMs);
    child.on("exit", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function ledgerIds(): Set<string> {
  const path = join(s.stateDir, "artifacts.json");
  if (!existsSync(path)) return new Set();
  const ledger = Ledger.parse(readFileSync(path, "utf8"), path); // throws on a torn or invalid file
  return new Set(ledger.list().map((e) => `${e.kind}/${e.name}`));
}

function hostRouteIds(): string[] {
  return s.ns
    .ip("-4 route show")
    .stdout.split("\n")
    .filter((l) => l.startsWith("10.200."))
    .map((l) => `linux.ipv4.route/table=254,dst=${l.split(" ")[0]}/32,metric=0`);
}

describe("kill -9 during a large reconcile", () => {
  it("keeps the ledger valid and every created artifact recorded, and a rerun converges", async () => {
    const configs = [bigConfig(600, 150), bigConfig(300, 40)].map((resources, i) => {
      const path = join(s.tmp.dir, `big-${i}.yaml`);
      writeFileSync(path, routerYaml(resources));
      return path;
    });
    let seed = 12345;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let round = 0; round < 16; round++) {
      await runAndKill(configs[round % 2]!, 150 + Math.floor(random() * 1200));
      const recorded = ledgerIds();
      const unrecorded = hostRouteIds().filter((id) => !recorded.has(id));
      expect(unrecorded, `round ${round}: routes on the host that the ledger does not know`).toEqual([]);
      if (s.ns.exec("nft", ["list", "tables"]).stdout.includes("routerd_nat")) expect(recorded.has("nft.table/ip/routerd_nat")).toBe(true);
    }
    for (const config of configs) {
      const final = s.routerd(["reconcile", "--once", "--config", config]);
      expect(final.code, final.stderr).toBe(0);
      expect(s.routerd(["plan", "--detailed-exitcode", "--config", config]).code).toBe(0);
    }
    // After the last (smaller) config: exactly its routes exist, all recorded as present.
    expect(hostRouteIds().length).toBe(300);
    const doc = JSON.parse(readFileSync(join(s.stateDir, "artifacts.json"), "utf8")) as { entries: { state: string }[] };
    expect(doc.entries.every((e) => e.state === "present")).toBe(true);
    // A process killed while making its command-output file cannot unlink it; the reruns remove such files.
    const stale = readdirSync(tmpdir()).filter((f) => f.startsWith(".routerd-out-") && !alive(Number.parseInt(f.slice(".routerd-out-".length), 10)));
    expect(stale).toEqual([]);
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
