// The LAN's resolver through `routerd serve`: DNSResolver, DNSZone (records and DHCP names from the managed
// dnsmasq's leases), DNSForwarder and DNSUpstream rendered into routerd-dns-resolver's config and
// supervised, the listen address read from the LAN interface's status and the upstream's address from the
// WAN DHCP client's lease (addressFrom); the firewall (input policy drop) gets the derived 53/udp+tcp hole; a LAN client (busybox
// routerd-dhcpv4-client) gets a lease and its name resolves within 2 s, and disappears after release; forwarding goes
// to unbound in an "isp" namespace; `routerctl dns` answers; a config change reaches the daemon by SIGHUP.
import { execFileSync, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { res, type ResourceDoc } from "../lib/config.js";
import { Lab, ifname, nsExec, sh } from "../dhcpv4-client/netns.js";
import { terminate } from "../lib/lab.js";
import { Router, ensureBuilt, until } from "../dhcpv4/router.js";
import { REPO } from "../lib/netns.js";
import { kdig, startUnbound } from "./peers.js";

const lab = new Lab("dnsserve", "rdns");
let router: Router;
let lanNs: string;
let isp: string;
let lanIf: string;
let wanIf: string;
const CLIENT_IF = "lanc0";
const ROUTER = "192.168.55.1";
const ROUTERCTL = join(REPO, "apps/routerctl/bin/routerctl.js");

const resources = (extra: ResourceDoc[] = []): ResourceDoc[] => [
  res("Interface", "lan", { ifname: lanIf }),
  res("Interface", "wan", { ifname: wanIf }),
  res("IPv4StaticAddress", "lan-addr", { interface: "lan", address: `${ROUTER}/24` }),
  // The WAN address and the ISP's DNS server come from the ISP's DHCP server.
  res("DHCPv4Client", "wan", { interface: "wan" }),
  { apiVersion: "firewall.routerd.net/v1alpha1", kind: "FirewallPolicy", name: "default", spec: { defaultInput: "drop" } },
  res("DHCPv4Server", "lan", { interface: "lan", addressPool: { start: "192.168.55.100", end: "192.168.55.150", leaseTime: "2m" }, dnsServers: [ROUTER], domain: "lan" }),
  res("DNSResolver", "lan", { listen: [{ name: "lan", addressFrom: [{ resource: "Interface/lan", field: "primaryIPv4" }] }] }),
  res("DNSZone", "lan", {
    zone: "lan",
    records: [{ hostname: "router", ipv4: ROUTER }, { hostname: "nas", ipv4: "192.168.55.10" }],
    dhcpDerived: { sources: ["DHCPv4Server/lan"], ttl: 30 },
    reverseZones: [{ name: "55.168.192.in-addr.arpa" }],
  }),
  res("DNSForwarder", "default", { resolver: "lan", match: ["."], upstreams: ["DNSUpstream/isp"] }),
  res("DNSUpstream", "isp", { protocol: "udp", addressFrom: [{ resource: "DHCPv4Client/wan", field: "dnsServers" }] }),
  ...extra,
];

const ask = (...args: string[]) => kdig(lab, lanNs, [`@${ROUTER}`, "+timeout=2", "+retry=0", ...args]);

const DHCP_CLIENT = join(REPO, "apps/routerd-dhcpv4-client/bin/routerd-dhcpv4-client.js");

/** routerd's own DHCPv4 client on the LAN side, standalone (events on stdout); SIGTERM releases the lease. */
function dhcpClient(hostname: string): { child: ChildProcess; events: string[] } {
  const events: string[] = [];
  const child = lab.spawn(lanNs, [process.execPath, DHCP_CLIENT, "--interface", CLIENT_IF, "--state-dir", lab.path(`dhcp-${hostname}`), "--hostname", hostname, "--json", "--retransmit-base-ms", "500"]);
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => events.push(...chunk.split("\n").filter(Boolean)));
  return { child, events };
}

beforeAll(async () => {
  const built = ["routerd", "@routerd/dns-resolver", "@routerd/routerctl", "@routerd/dhcpv4-client"].flatMap((f) => ["--filter", f]);
  ensureBuilt();
  execFileSync("npx", ["turbo", "run", "build", ...built, "--output-logs=errors-only"], { cwd: REPO, stdio: ["ignore", "ignore", "inherit"] });
  router = new Router(lab);
  lanNs = lab.netns("lan");
  isp = lab.netns("isp");
  lanIf = ifname("dl");
  wanIf = ifname("dw");
  lab.veth(router.ns, lanIf, lanNs, CLIENT_IF);
  lab.veth(router.ns, wanIf, isp, "isp0");
  sh(["ip", "-n", isp, "addr", "add", "10.55.0.2/24", "dev", "isp0"]);
  // The client asks from a fixed address; its DHCP leases only have to exist in dnsmasq's lease file.
  sh(["ip", "-n", lanNs, "addr", "add", "192.168.55.2/24", "dev", CLIENT_IF]);
  writeFileSync(lab.path("example.zone"), ["$ORIGIN example.test.", "$TTL 300", "@ IN SOA ns admin 1 3600 600 86400 60", "@ IN NS ns", "ns IN A 10.55.0.2", "www IN A 198.51.100.80", ""].join("\n"));
  await startUnbound(lab, isp, "isp", { addresses: ["10.55.0.2"], zones: [{ name: "example.test.", file: lab.path("example.zone") }] });
  // The ISP's DHCP server: the router's WAN address, and 10.55.0.2 as the DNS server it should use.
  lab.spawn(isp, [
    "dnsmasq",
    "--keep-in-foreground",
    "--port=0",
    "--interface=isp0",
    "--bind-interfaces",
    "--dhcp-range=10.55.0.100,10.55.0.150,255.255.255.0,2m",
    "--dhcp-option=option:dns-server,10.55.0.2",
    "--dhcp-option=option:router,10.55.0.2",
    `--dhcp-leasefile=${lab.path("isp.leases")}`,
    "--pid-file=",
    "--conf-file=/dev/null",
  ]);
  router.writeConfig(resources());
  router.startServe();
}, 300_000);

afterAll(async () => {
  await router?.cleanup();
  expect(router.leftovers()).toEqual([]);
});

describe("the LAN's resolver under routerd serve", () => {
  it("answers LAN clients through the derived firewall hole: local names and forwarded ones", { timeout: 90_000 }, async () => {
    await until("the resolver answering router.lan", () => ask("router.lan", "A").answer[0]?.data === ROUTER, 40_000, 500);
    // The upstream's address arrives with the WAN lease (DHCPv4Client/wan dnsServers).
    await until("forwarding through the ISP's DNS server from DHCP", () => ask("www.example.test", "A").answer[0]?.data === "198.51.100.80", 40_000, 500);
    const rules = nsExec(router.ns, ["nft", "list", "ruleset"]);
    expect(rules).toContain(`iifname "${lanIf}" udp dport 53 accept`);
    expect(rules).toContain(`iifname "${lanIf}" tcp dport 53 accept`);
    expect(ask("router.lan", "A", "+tcp").answer.map((r) => r.data)).toEqual([ROUTER]);
    expect(ask("10.55.168.192.in-addr.arpa", "PTR").answer.map((r) => r.data)).toEqual(["nas.lan."]);
    expect(ask("www.example.test", "A").answer.map((r) => r.data)).toEqual(["198.51.100.80"]);
  });

  it("resolves a DHCP client by name within 2 s of its lease, and forgets it after release", { timeout: 60_000 }, async () => {
    await until("dnsmasq running", () => router.pid("main", "dnsmasq"), 20_000);
    const client = dhcpClient("laptop");
    await until("a lease for laptop", () => client.events.some((e) => e.includes('"bound"') || e.includes("Bound")), 30_000, 100);
    const leased = Date.now();
    const answer = await until("laptop.lan", () => {
      const r = ask("laptop.lan", "A");
      return r.answer.length > 0 ? r : undefined;
    }, 5_000, 100);
    expect(Date.now() - leased).toBeLessThan(2_000 + 500);
    const address = answer.answer[0]!.data;
    expect(address).toMatch(/^192\.168\.55\.1\d\d$/);
    const ptr = address.split(".").reverse().join(".") + ".in-addr.arpa";
    expect(ask(ptr, "PTR").answer.map((r) => r.data)).toEqual(["laptop.lan."]);
    await terminate(client.child);
    const released = Date.now();
    await until("laptop.lan gone after release", () => ask("laptop.lan", "A").status === "NXDOMAIN", 5_000, 100);
    expect(Date.now() - released).toBeLessThan(2_000 + 500);
  });

  it("reports through routerctl dns and takes config changes without a restart", { timeout: 60_000 }, async () => {
    const stats = JSON.parse(nsExec(router.ns, [process.execPath, ROUTERCTL, "dns", "stats", "--json", "--run-dir", router.runDir])) as {
      counters: Record<string, number>;
      listeners: { address: string; bound: boolean }[];
      upstreams: { name: string; state: string }[];
    };
    expect(stats.counters.queries).toBeGreaterThan(0);
    expect(stats.listeners).toEqual([expect.objectContaining({ address: ROUTER, bound: true })]);
    expect(stats.upstreams).toEqual([expect.objectContaining({ name: "isp", state: "up" })]);
    const lookup = JSON.parse(nsExec(router.ns, [process.execPath, ROUTERCTL, "dns", "lookup", "nas.lan", "--json", "--run-dir", router.runDir])) as { source: string; answers: { data: string }[] };
    expect(lookup).toMatchObject({ source: "local", answers: [{ data: "192.168.55.10" }] });
    const pid = router.pid("lan", "dns-resolver");
    router.writeConfig(resources().map((r) => (r.kind === "DNSZone" ? { ...r, spec: { ...r.spec, records: [...(r.spec.records as object[]), { hostname: "printer", ipv4: "192.168.55.20" }] } } : r)));
    await until("printer.lan after the config change", () => ask("printer.lan", "A").answer[0]?.data === "192.168.55.20", 30_000, 300);
    expect(router.pid("lan", "dns-resolver")).toBe(pid);
  });
});
