// Links routerd creates, between real routers in one VM: IP tunnels (ipip, gre, ipip in FOU) and VXLAN carry
// traffic, VRFs keep the same prefix apart, and removing the resources deletes exactly the links routerd
// created; a foreign link with a wanted name is never touched.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { readLedger } from "@routerd/resource";
import { Lab, sh } from "../lib/lab.js";
import { Router, res } from "./lib/router.js";
import { defineScenarios } from "./lib/scenarios.js";

/** `<resource> <module> <change>` of the first kernel module in a `plan --json`. */
function moduleInPlan(text: string): string {
  const plan = JSON.parse(text) as { resources: { id: string; artifacts: { kind: string; name: string; change: string }[] }[] };
  const found = plan.resources.flatMap((x) => x.artifacts.filter((a) => a.kind === "linux.kernelModule").map((a) => `${x.id} ${a.name} ${a.change}`));
  return found[0] ?? "(none)";
}

const tunnel = (name: string, spec: Record<string, unknown>) => ({ ...res("TunnelInterface", name, { trustedUnderlay: true, ...spec }), apiVersion: "hybrid.routerd.net/v1alpha1" });

export default defineScenarios([
  {
    name: "kernel modules: routerd loads the module a VRF needs and records it, records none it did not load, unloads none",
    timeoutMs: 300_000,
    async run(ctx) {
      // Modules are global to the VM: this scenario runs first, before any other loads vrf (a VRF scenario's
      // namespaces keep it busy long after they are deleted).
      const loaded = () => readFileSync("/proc/modules", "utf8").split("\n").some((l) => l.startsWith("vrf "));
      const lab = new Lab("mod", "kl");
      try {
        // An earlier scenario's namespaces (and their VRFs) go away asynchronously: vrf is busy until then.
        for (let i = 0; i < 10 && loaded(); i++) {
          sh(["modprobe", "-r", "vrf"], { allowFail: true });
          if (loaded()) await new Promise((r) => setTimeout(r, 1000));
        }
        assert.equal(loaded(), false, "vrf is not loaded before the scenario");
        const r = new Router(lab, "r");
        const vrf = [res("Interface", "lo", { managed: false }), res("VRF", "blue", { routeTable: 100 })];
        const planned = r.plan(vrf);
        assert.equal(moduleInPlan(planned.text), "VRF/blue vrf create", "plan shows the module to load");
        r.apply(vrf);
        assert.equal(loaded(), true, "routerd loaded vrf");
        assert.equal(readLedger(r.stateDir).get("linux.kernelModule", "vrf")?.ownership, "created", "the ledger records routerd loaded it");
        ctx.log(`ledger: ${JSON.stringify(readLedger(r.stateDir).get("linux.kernelModule", "vrf"))}`);
        const again = r.plan(vrf);
        assert.deepEqual([again.summary.create, again.summary.update, again.summary.delete], [0, 0, 0], `nothing left to do: ${again.text}`);

        r.apply([res("Interface", "lo", { managed: false })]);
        assert.equal(r.links().has("blue"), false, "the VRF is gone");
        assert.equal(loaded(), true, "routerd never unloads a module (rmmod would delete every VRF on the host)");
        assert.equal(readLedger(r.stateDir).get("linux.kernelModule", "vrf"), undefined, "the ledger forgot it");

        // Loaded before routerd (by the step above, as by anyone): used, never recorded as routerd's.
        assert.equal(moduleInPlan(r.plan(vrf).text), "VRF/blue vrf unchanged", "plan: present, nothing to do");
        r.apply(vrf);
        assert.equal(readLedger(r.stateDir).get("linux.kernelModule", "vrf"), undefined, "a module routerd did not load is not in the ledger");
        r.apply([res("Interface", "lo", { managed: false })]);
        assert.equal(loaded(), true, "and it stays loaded");
      } finally {
        await lab.cleanup();
        sh(["modprobe", "-r", "vrf"], { allowFail: true });
      }
    },
  },
  {
    name: "TunnelInterface ipip, gre and ipip-in-FOU between two routers carry traffic; removal deletes exactly those links",
    timeoutMs: 900_000,
    async run(ctx) {
      const lab = new Lab("tun", "kl");
      try {
        const [a, b] = [new Router(lab, "a"), new Router(lab, "b")];
        lab.veth(a.ns, "under", b.ns, "under");
        // Two underlay address pairs: the kernel keeps one ipip tunnel per (local, remote).
        for (const [r, n] of [[a, 1], [b, 2]] as const) {
          r.ip("addr", "add", `198.51.100.${n}/24`, "dev", "under");
          r.ip("addr", "add", `198.51.100.${10 + n}/24`, "dev", "under");
        }
        const config = (me: number, peer: number) => [
          res("Interface", "under", { ifname: "under" }),
          tunnel("t-ipip", { mode: "ipip", local: `198.51.100.${me}`, remote: `198.51.100.${peer}`, address: `10.255.1.${me}/30` }),
          tunnel("t-gre", { mode: "gre", local: `198.51.100.${me}`, remote: `198.51.100.${peer}`, key: 7, ttl: 64, address: `10.255.2.${me}/30` }),
          tunnel("t-fou", { mode: "fou", local: `198.51.100.${10 + me}`, remote: `198.51.100.${10 + peer}`, encapDport: 5555, address: `10.255.3.${me}/30` }),
        ];
        a.apply(config(1, 2));
        b.apply(config(2, 1));
        ctx.log(a.ip("-d", "link", "show", "t-fou"));
        assert.deepEqual([a.links().get("t-ipip"), a.links().get("t-gre"), a.links().get("t-fou")], ["ipip", "gre", "ipip"]);
        assert.match(sh(["ip", "netns", "exec", a.ns, "ip", "fou", "show"]), /port 5555 ipproto 4/);
        for (const net of [1, 2, 3]) assert.ok(a.ping(`10.255.${net}.2`), `traffic through tunnel ${net}`);
        const again = a.plan(config(1, 2));
        assert.deepEqual([again.summary.create, again.summary.update, again.summary.delete], [0, 0, 0], `nothing left to do: ${again.text}`);

        a.ip("link", "add", "t-keep", "type", "dummy"); // someone else's link, never routerd's
        a.apply([res("Interface", "under", { ifname: "under" })]);
        const left = a.links();
        assert.equal(left.has("t-ipip") || left.has("t-gre") || left.has("t-fou"), false, "routerd's tunnels are gone");
        assert.equal(left.get("t-keep"), "dummy");
        assert.equal(left.has("under"), true);
        assert.doesNotMatch(sh(["ip", "netns", "exec", a.ns, "ip", "fou", "show"], { allowFail: true }), /5555/);
      } finally {
        await lab.cleanup();
      }
    },
  },
  {
    name: "VRFs keep the same prefix apart; a foreign VRF with a wanted name is left alone; removal deletes only routerd's",
    timeoutMs: 600_000,
    async run(ctx) {
      const lab = new Lab("vrf", "kl");
      try {
        const r = new Router(lab, "r");
        const [x, y] = [lab.netns("x"), lab.netns("y")];
        lab.veth(r.ns, "eth-x", x, "eth0");
        lab.veth(r.ns, "eth-y", y, "eth0");
        sh(["ip", "-n", x, "addr", "add", "10.0.0.2/24", "dev", "eth0"]);
        sh(["ip", "-n", y, "addr", "add", "10.0.0.3/24", "dev", "eth0"]);
        r.ip("link", "add", "green", "type", "vrf", "table", "300"); // foreign, same name as a wanted VRF
        const resources = [
          res("Interface", "x", { ifname: "eth-x" }),
          res("Interface", "y", { ifname: "eth-y" }),
          res("VRF", "red", { routeTable: 100, members: ["x"] }),
          res("VRF", "blue", { routeTable: 200, members: ["y"] }),
          res("VRF", "green", { routeTable: 301 }),
          res("IPv4StaticAddress", "x-addr", { interface: "x", address: "10.0.0.1/24" }),
          res("IPv4StaticAddress", "y-addr", { interface: "y", address: "10.0.0.254/24" }),
        ];
        const out = r.apply(resources);
        ctx.log(out.stdout);
        assert.match(r.ip("route", "show", "vrf", "red"), /10\.0\.0\.0\/24 dev eth-x/);
        assert.match(r.ip("route", "show", "vrf", "blue"), /10\.0\.0\.0\/24 dev eth-y/);
        assert.ok(r.ping("10.0.0.2", ["-I", "red"]), "red reaches x");
        assert.ok(!r.ping("10.0.0.3", ["-I", "red"]), "red does not reach y's host");
        assert.ok(r.ping("10.0.0.3", ["-I", "blue"]), "blue reaches y");
        assert.match(r.ip("-d", "link", "show", "green"), /vrf table 300/, "the foreign VRF keeps its own table");
        const plan = r.plan(resources);
        assert.ok(plan.adoptionCandidates.some((c) => c.kind === "linux.link" && c.name === "green"), `green is offered for adoption: ${plan.text}`);
        assert.deepEqual([plan.summary.create, plan.summary.update, plan.summary.delete], [0, 0, 0]);

        r.apply([res("Interface", "x", { ifname: "eth-x" }), res("Interface", "y", { ifname: "eth-y" })]);
        const links = r.links();
        assert.equal(links.has("red") || links.has("blue"), false);
        assert.equal(links.get("green"), "vrf", "the foreign VRF is still there");
        assert.equal(links.has("eth-x") && links.has("eth-y"), true);
      } finally {
        await lab.cleanup();
      }
    },
  },
  {
    name: "VXLAN between two routers carries a bridged LAN; removal leaves the bridges",
    timeoutMs: 600_000,
    async run() {
      const lab = new Lab("vx", "kl");
      try {
        const [a, b] = [new Router(lab, "a"), new Router(lab, "b")];
        lab.veth(a.ns, "under", b.ns, "under");
        const hosts = [lab.netns("ha"), lab.netns("hb")];
        for (const [i, r] of [a, b].entries()) {
          r.ip("addr", "add", `198.51.100.${i + 1}/24`, "dev", "under");
          r.ip("link", "add", "br0", "type", "bridge");
          lab.veth(r.ns, "lan", hosts[i]!, "eth0");
          r.ip("link", "set", "lan", "master", "br0");
          sh(["ip", "-n", hosts[i]!, "addr", "add", `10.9.0.${i + 1}/24`, "dev", "eth0"]);
        }
        const config = (me: number, peer: number) => [
          res("Interface", "under", { ifname: "under" }),
          res("Interface", "br", { ifname: "br0" }),
          res("VXLANTunnel", "vx", { ifname: "vx42", vni: 42, localAddress: `198.51.100.${me}`, underlayInterface: "under", peers: [`198.51.100.${peer}`], bridge: "br", mtu: 1450 }),
        ];
        a.apply(config(1, 2));
        b.apply(config(2, 1));
        assert.match(a.ip("-d", "link", "show", "vx42"), /vxlan id 42/);
        assert.match(sh(["ip", "netns", "exec", a.ns, "bridge", "fdb", "show", "dev", "vx42"]), /00:00:00:00:00:00 dst 198\.51\.100\.2/);
        assert.match(sh(["ip", "netns", "exec", hosts[0]!, "ping", "-c", "2", "-W", "2", "10.9.0.2"]), /2 received/);

        a.apply([res("Interface", "under", { ifname: "under" }), res("Interface", "br", { ifname: "br0" })]);
        assert.equal(a.links().has("vx42"), false);
        assert.equal(a.links().get("br0"), "bridge");
      } finally {
        await lab.cleanup();
      }
    },
  },
]);
