// routerctl get / describe / doctor against a real router namespace: phases from status.json, specs from
// the current generation, owned artifacts from the ledger, serve's published fields when it runs; doctor
// on this machine and with nft missing from PATH.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { killAll } from "../lib/daemons.js";
import { res } from "../lib/config.js";
import { pathWithout, sh } from "../lib/netns.js";
import { RouterScenario } from "../lib/scenario.js";
import { ROUTERCTL, startServe, until, type ServeProcess } from "../lib/serve.js";

let s: RouterScenario;
let serve: ServeProcess | undefined;
const runDir = () => join(s.stateDir, "run");
const config = () => [
  res("Interface", "lan", { ifname: "lan0", mtu: 1400 }),
  res("IPv4StaticAddress", "lan-address", { interface: "lan", address: "192.168.50.1/24" }),
  res("IPv4Route", "lab-net", { destination: "10.20.0.0/16", gateway: "192.168.50.254", table: 100 }),
];

function routerctl(args: string[], env?: NodeJS.ProcessEnv) {
  return sh("ip", ["netns", "exec", s.ns.name, process.execPath, ROUTERCTL, ...args, "--state-dir", s.stateDir, "--run-dir", runDir()], { allowFail: true, ...(env ? { env } : {}) });
}

beforeAll(() => {
  s = new RouterScenario();
  const r = s.routerd(["apply", "--config", s.writeConfig(config())]);
  expect(r.code, r.stderr).toBe(0);
});
afterAll(async () => {
  await serve?.stop("SIGKILL");
  await killAll(s.stateDir);
  s.destroy();
});

describe("routerctl get", () => {
  it("lists every resource with the phase of the last reconcile, without serve", () => {
    const r = routerctl(["get", "-o", "json"]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { resources: { id: string; phase: string; status?: unknown }[]; note?: string };
    expect(out.resources.map((x) => [x.id, x.phase])).toEqual([
      ["Interface/lan", "Ready"],
      ["IPv4StaticAddress/lan-address", "Ready"],
      ["IPv4Route/lab-net", "Ready"],
    ]);
    expect(out.note).toContain("routerd serve is not answering");
    expect(routerctl(["get", "ipv4routes"]).stdout).toMatch(/^NAME\s+PHASE\s+AGE\s+STATUS\nIPv4Route\/lab-net\s+Ready\s+\d+s/);
  });

  it("refuses an unknown kind or resource with exit 1", () => {
    const kind = routerctl(["get", "Routers"]);
    expect(kind.code).toBe(1);
    expect(kind.stderr).toContain('no kind "Routers"; kinds: Interface,');
    const name = routerctl(["get", "Interface/wan"]);
    expect(name.code).toBe(1);
    expect(name.stderr).toContain("Interface/wan not found (config: generation 1)");
  });

  it("shows what serve publishes once serve runs", async () => {
    serve = startServe(s.ns, { config: s.configPath, stateDir: s.stateDir, runDir: runDir(), root: s.root });
    const out = await until("get with serve's fields", () => {
      const r = routerctl(["get", "-o", "yaml"]);
      return r.code === 0 && !r.stdout.includes("not answering") ? r.stdout : undefined;
    }, 30_000, 200);
    expect(out).toMatch(/- id: Interface\/lan\n\s+kind: Interface\n\s+name: lan\n\s+phase: Ready/);
    expect(out).toContain("status:");
  });

  it("sees a config serve applied, which serve recorded as a generation", async () => {
    s.writeConfig([...config(), res("IPv4Route", "extra", { destination: "10.21.0.0/16", gateway: "192.168.50.254", table: 100 })]);
    const listed = await until("serve to apply and record the edited config", () => {
      const g = JSON.parse(s.routerd(["rollback", "--list", "--json"]).stdout) as { generations: { generation: number; appliedBy: { command: string }; configPath: string }[] };
      return g.generations.find((x) => x.generation === 2);
    }, 30_000, 200);
    expect(listed).toMatchObject({ appliedBy: { command: "routerd serve" }, configPath: s.configPath });
    const r = routerctl(["get", "IPv4Route/extra"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/IPv4Route\/extra\s+Ready/);
  });
});

describe("routerctl describe", () => {
  it("shows the spec, the owned artifacts from the ledger and the config generation", () => {
    const r = routerctl(["describe", "IPv4Route/lab-net"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("Kind:      IPv4Route");
    expect(r.stdout).toContain("Spec:\n  destination: 10.20.0.0/16\n  gateway: 192.168.50.254\n  table: 100");
    expect(r.stdout).toMatch(/Owned artifacts \(ledger\):\n {2}created\s+present\s+linux\.ipv4\.route /);
    expect(r.stdout).toMatch(/note: spec from generation \d+/);
    const json = JSON.parse(routerctl(["describe", "ipv4staticaddress/lan-address", "--json"]).stdout) as { artifacts: { kind: string; name: string }[]; phase: string };
    expect(json.phase).toBe("Ready");
    expect(json.artifacts).toEqual([{ kind: "linux.ipv4.address", name: "lan0/192.168.50.1/24", ownership: "created", state: "present" }]);
  });

  it("needs KIND/NAME", () => {
    expect(routerctl(["describe", "Interface"]).stderr).toContain("describe needs one KIND/NAME");
  });
});

describe("routerctl doctor", () => {
  it("finds what routerd needs on this machine", () => {
    const r = routerctl(["doctor", "--json"]);
    const out = JSON.parse(r.stdout) as { ok: boolean; findings: { check: string; verdict: string; detail: string }[] };
    expect(out.findings.filter((f) => f.verdict === "fail")).toEqual([]);
    expect(r.code).toBe(0);
    expect(out.findings).toContainEqual(expect.objectContaining({ check: "kernel", verdict: "ok", detail: "NAT supported" }));
    expect(out.findings).toContainEqual(expect.objectContaining({ check: "sockets", verdict: "ok", detail: "routerd serve answers on core.sock" }));
  });

  it("exits 1 with advice when nft is missing", () => {
    const path = pathWithout(["nft"]);
    try {
      const r = routerctl(["doctor"], { ...process.env, PATH: path.path });
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/FAIL  nftables\s+nft is not installed \(not found in PATH\)\n\s+→ apt install nftables/);
      expect(r.stdout).toMatch(/\d+ problems? to fix/);
    } finally {
      path.cleanup();
    }
  });
});
