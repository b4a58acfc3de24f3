// DS-Lite under routerd serve: the AFTR's name comes from DHCPv6 option 64 (kea at the ISP), is resolved
// through the ISP's DNS (dnsmasq), and the B4's tunnel carries the LAN's IPv4 to an AFTR that NATs it.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { Kea } from "../dhcpv6-client/support/kea.js";
import { res, routerYaml } from "../lib/config.js";
import { killAll } from "../lib/daemons.js";
import { Lab, sh } from "../lib/lab.js";
import type { Netns } from "../lib/netns.js";
import { startServe, until, type ServeProcess } from "../lib/serve.js";
import { defineScenarios } from "./lib/scenarios.js";

const WAIT = 600_000;
const AFTR = "2001:db8:1::1";
const B4 = "2001:db8:1::2";
const INTERNET = "203.0.113.10";

export default defineScenarios([
  {
    name: "the LAN's IPv4 reaches the AFTR's side through the tunnel; the AFTR comes from DHCPv6 option 64; removal deletes the tunnel and its route",
    timeoutMs: 1_500_000,
    async run(ctx) {
      const lab = new Lab("ds", "kl");
      let serve: ServeProcess | undefined;
      let kea: Kea | undefined;
      const dirs = { stateDir: lab.path("state"), runDir: lab.path("run"), root: lab.path("root") };
      try {
        const [aftr, b4, lan, inet] = [lab.netns("aftr"), lab.netns("b4"), lab.netns("lan"), lab.netns("inet")];
        lab.veth(aftr, "b4side", b4, "wan0");
        lab.veth(lan, "eth0", b4, "lan0");
        lab.veth(aftr, "to-inet", inet, "eth0");
        const run = (ns: string, ...cmd: string[]) => sh(["ip", "netns", "exec", ns, ...cmd]);
        sh(["ip", "-n", aftr, "addr", "add", `${AFTR}/64`, "dev", "b4side", "nodad"]);
        sh(["ip", "-n", b4, "addr", "add", `${B4}/64`, "dev", "wan0", "nodad"]);
        sh(["ip", "-n", lan, "addr", "add", "192.168.1.2/24", "dev", "eth0"]);
        sh(["ip", "-n", lan, "route", "add", "default", "via", "192.168.1.1"]);
        sh(["ip", "-n", aftr, "addr", "add", "203.0.113.1/24", "dev", "to-inet"]);
        sh(["ip", "-n", inet, "addr", "add", `${INTERNET}/24`, "dev", "eth0"]);
        // The AFTR: the softwire back to this B4, CGN (masquerade) towards the internet.
        run(aftr, "sysctl", "-qw", "net.ipv4.ip_forward=1");
        sh(["ip", "-n", aftr, "link", "add", "aftr0", "type", "ip6tnl", "mode", "ip4ip6", "local", AFTR, "remote", B4, "encaplimit", "none"]);
        sh(["ip", "-n", aftr, "addr", "add", "192.0.0.1/29", "dev", "aftr0"]);
        sh(["ip", "-n", aftr, "link", "set", "aftr0", "up"]);
        sh(["ip", "-n", aftr, "route", "add", "192.168.1.0/24", "dev", "aftr0"]);
        run(aftr, "nft", "add table ip cgn; add chain ip cgn post { type nat hook postrouting priority 100; }; add rule ip cgn post oifname to-inet masquerade");
        // The ISP's DNS knows the AFTR's name; its DHCPv6 server hands the name out (option 64).
        lab.spawn(aftr, ["dnsmasq", "--keep-in-foreground", "--no-resolv", "--no-hosts", "--conf-file=/dev/null", "--pid-file=", "--user=root", "--bind-interfaces", `--listen-address=${AFTR}`, `--host-record=aftr.example,${AFTR}`]);
        kea = new Kea(lab as never, aftr, {
          subnets: [{ id: 1, iface: "b4side", subnet: "2001:db8:1::/64", pdPrefix: "2001:db8:1000::", pdPrefixLen: 40, delegatedLen: 56 }],
          timers: { renew: 60, rebind: 90, preferred: 120, valid: 180 },
          optionData: [{ name: "aftr-name", data: "aftr.example" }],
        });
        await kea.start(WAIT);

        const config = lab.path("router.yaml");
        const base = [
          res("Interface", "wan", { ifname: "wan0" }),
          res("Interface", "lan", { ifname: "lan0" }),
          res("IPv4StaticAddress", "lan-addr", { interface: "lan", address: "192.168.1.1/24" }),
          res("Sysctl", "forward", { key: "net.ipv4.ip_forward", value: 1 }),
          res("DHCPv6PrefixDelegation", "pd", { interface: "wan", prefixLength: 56 }),
        ];
        const dslite = res("DSLiteTunnel", "ds", { interface: "wan", tunnelName: "ds0", aftrFrom: { resource: "DHCPv6PrefixDelegation/pd", field: "aftrName" }, aftrDNSServers: [AFTR], defaultRoute: true });
        writeFileSync(config, routerYaml([...base, dslite]));
        serve = startServe({ name: b4 } as Netns, { config, ...dirs });
        await until("the tunnel to the AFTR with the default route through it", () => /default dev ds0/.test(sh(["ip", "-n", b4, "route"], { allowFail: true })), WAIT, 500);
        const details = sh(["ip", "-n", b4, "-d", "link", "show", "ds0"]);
        ctx.log(details);
        assert.match(details, new RegExp(`ip6tnl ipip6 remote ${AFTR} local ${B4}`));
        assert.match(sh(["ip", "-n", b4, "-4", "addr", "show", "dev", "ds0"]), /192\.0\.0\.2\/29/);
        await until("the LAN reaches the internet behind the AFTR", () => /[1-9] received/.test(sh(["ip", "netns", "exec", lan, "ping", "-c", "2", "-W", "2", INTERNET], { allowFail: true })), WAIT, 1000);

        writeFileSync(config, routerYaml(base));
        await until("the tunnel and its route are gone", () => !/ds0/.test(sh(["ip", "-n", b4, "link"])) && !/default dev ds0/.test(sh(["ip", "-n", b4, "route"])), WAIT, 500);
        assert.match(sh(["ip", "-n", b4, "link"]), /wan0/);
      } finally {
        ctx.log(`--- routerd serve:\n${(serve?.log ?? []).join("").slice(-4000)}`);
        ctx.log(`--- kea:\n${kea?.log.slice(-1500) ?? ""}`);
        await serve?.stop("SIGKILL");
        await killAll(dirs.runDir);
        await kea?.stop();
        await lab.cleanup();
      }
    },
  },
]);
