// `npm run lab` (the README's first command) end to end, with its own namespace prefix and lab dir so it
// never collides with a lab a developer has up or with another test run: the home router under
// `routerd serve` comes up with every check passing (the optional BGP, WireGuard and NTP parts included),
// fails over and back (uplinks, a service's web servers), and `down` leaves nothing behind;
// then the static NAT walkthrough (`npm run lab -- nat`) does the same.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO, sh, tempDir, uniqueName } from "../lib/netns.js";

const name = uniqueName("rdlt").replace("-", "");
const tmp = tempDir("routerd-lab-test-");
const dir = join(tmp.dir, "lab");
const env = { ...process.env, ROUTERD_LAB_NAME: name, ROUTERD_LAB_DIR: dir };
/** scripts/lab.sh with more settings (e.g. an optional part switched off). */
const labWith = (settings: Record<string, string>, ...args: string[]) => {
  const r = sh("bash", [join(REPO, "scripts/lab.sh"), ...args], { env: { ...env, ...settings }, allowFail: true });
  if (process.env.ROUTERD_E2E_DEBUG) process.stderr.write(`--- lab ${args.join(" ")} (exit ${r.code})\n${r.stdout}${r.stderr}`);
  return { ...r, all: r.stdout + r.stderr };
};
const lab = (...args: string[]) => labWith({}, ...args);
const namespaces = () =>
  sh("ip", ["netns", "list"])
    .stdout.split("\n")
    .map((l) => l.split(" ")[0]!)
    .filter((l) => l.startsWith(`${name}-`));
/** Every process whose command line mentions the lab dir (serve, its daemons, the lab's servers). */
const processes = () =>
  readdirSync("/proc").filter((p) => {
    if (!/^\d+$/.test(p) || Number(p) === process.pid) return false;
    try {
      return readFileSync(`/proc/${p}/cmdline`, "utf8").includes(dir);
    } catch {
      return false;
    }
  });

/** Every process running in the lab's namespaces now, with its command line (to recognise it later). */
const labProcesses = () =>
  namespaces().flatMap((ns) =>
    sh("ip", ["netns", "pids", ns], { allowFail: true })
      .stdout.split(/\s+/)
      .filter(Boolean)
      .map((pid) => ({ pid, cmdline: cmdline(pid) })),
  );
const cmdline = (pid: string) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return undefined;
  }
};
/** Of the processes seen earlier, those still alive (same pid, same command line). */
const stillRunning = (seen: { pid: string; cmdline: string | undefined }[]) => seen.filter((p) => p.cmdline !== undefined && cmdline(p.pid) === p.cmdline);

afterAll(() => {
  lab("down");
  tmp.cleanup();
});

function expectAllPassed(r: { code: number; stdout: string; all: string }): void {
  expect(r.all).not.toMatch(/\bFAIL\b/);
  expect(r.stdout).toMatch(/\n\s+(\d+) passed, 0 failed\n/);
  expect(r.code).toBe(0);
}

function expectNothingLeft(seen: { pid: string; cmdline: string | undefined }[]): void {
  expect(namespaces()).toEqual([]);
  expect(existsSync(dir)).toBe(false);
  expect(processes()).toEqual([]);
  expect(stillRunning(seen)).toEqual([]);
}

describe("npm run lab", () => {
  it("brings the home router up under routerd serve and proves it: leases, prefix, LAN client, NAT, IPv6, firewall, health", { timeout: 480_000 }, () => {
    const up = lab("up");
    expectAllPassed(up);
    expect(Number(/(\d+) passed, 0 failed/.exec(up.stdout)![1])).toBeGreaterThanOrEqual(20);
    for (const step of ["wan1 leased by isp1", "a /56 delegated by isp1", "by DHCPv4 (udhcpc)", "by SLAAC", "both uplinks reach the internet", "the web servers' health checks pass"]) expect(up.stdout).toContain(step);
    // The BGP part (on by default): the session with isp1's gobgpd and its prefixes in the FIB (proto 219).
    expect(up.stdout).toMatch(/PASS {2}BGP: the session with isp1's gobgpd is Established/);
    expect(up.stdout).toMatch(/PASS {2}BGP: isp1's prefixes are in the router's FIB/);
    // The WireGuard part (on by default): the road warrior beyond isp1 dials wan1 and reaches the LAN through the tunnel.
    expect(up.stdout).toContain("the road warrior's handshake with the router");
    expect(up.stdout).toMatch(/PASS {2}WireGuard: the road warrior's handshake, as routerd reports it \(routerctl status\)\n\s+WireGuardPeer\/road-warrior Connected from 100\.64\.1\.2:\d+/);
    expect(up.stdout).toMatch(/PASS {2}WireGuard: the router reaches the road warrior's tunnel address 10\.77\.0\.2/);
    expect(up.stdout).toMatch(/PASS {2}WireGuard: the road warrior reaches the LAN client's web server through the tunnel .*\n\s+lan-web at 192\.168\.10\.10:80 answered; it saw the client as 10\.77\.0\.2:/);
    expect(up.stdout).toMatch(/\$ wg show \w+-wg .*\n(.*\n)*?\s+latest handshake: /);
    // The NTP part (on by default): isp1's server from both leases in routerd's chrony block, the router's chronyd synced to it.
    expect(up.stdout).toMatch(/PASS {2}NTP: routerd renders isp1's servers .*\n.*routerd\.sources: server 198\.51\.100\.1 iburst; server 2001:db8:1::1 iburst/);
    expect(up.stdout).toMatch(/PASS {2}NTP: NTPClient\/time reports its servers from the DHCP leases .*\n\s+NTPClient\/time: source dhcp, servers 198\.51\.100\.1, 2001:db8:1::1/);
    expect(up.stdout).toMatch(/PASS {2}NTP: the router's chronyd is synchronised to isp1's server .*\n.*\((?:198\.51\.100\.1|2001:db8:1::1)\), stratum: 9/);
    expect(up.stdout).toMatch(/^\s+\^\* (198\.51\.100\.1|2001:db8:1::1) +8 /m);
    // The published service: connections from outside spread over all three LAN web servers.
    expect(up.stdout).toMatch(/PASS {2}IngressService web: .*spread over web1,web2,web3/);
    // The operator's view: routerctl status with the live facts, and the ledger.
    expect(up.stdout).toMatch(/DHCPv4Client\/isp1\s+Ready\s+198\.51\.100\.\d+\/24 via 198\.51\.100\.1/);
    expect(up.stdout).toMatch(/DHCPv6PrefixDelegation\/isp1-pd\s+Ready\s+2001:db8:10\w*::\/56/);
    expect(up.stdout).toMatch(/EgressRoutePolicy\/internet\s+Ready\s+active isp1/);
    expect(up.stdout).toMatch(/IngressService\/web\s+Ready\s+new connections go to web1, web2, web3/);
    expect(up.stdout).toMatch(/daemons \(7\):/); // 6 + bgp/edge (the BGP part, on by default)
    expect(up.stdout).toMatch(/dns-resolver\/lan\s+pid \d+/);
    // The LAN's DNS: the router answers its own names and the DHCP client's, and forwards the rest.
    for (const check of ["router.lan", "media.lan", "www.isp.example"]) expect(up.stdout).toContain(check);
    expect(up.stdout).toMatch(/\d+ artifacts owned by routerd/);
    expect(namespaces().sort()).toEqual([`${name}-isp1`, `${name}-isp2`, `${name}-lan`, `${name}-road`, `${name}-router`]);
    // The wrappers run routerctl in the lab's namespace with its run dir.
    expect(sh(join(dir, "routerctl"), ["health"], { allowFail: true }).stdout).toMatch(/isp1-internet\s+Healthy/);

    expect(lab("status").code).toBe(0);
    expectAllPassed(lab("check"));
    const refused = lab("up");
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toContain("already up");
  });

  it("fails over to isp2 when isp1's internet goes away, and back after failbackDelay", { timeout: 240_000 }, () => {
    const fail = lab("fail", "isp1");
    expect(fail.code, fail.all).toBe(0);
    expect(fail.stdout).toMatch(/failover: routerd serve switched to isp2 [\d.]+ s/);
    expect(fail.stdout).toContain("is answered through isp2");
    const heal = lab("heal", "isp1");
    expect(heal.code, heal.all).toBe(0);
    expect(heal.stdout).toMatch(/failback: routerd serve switched back to isp1 [\d.]+ s/);
    expect(heal.stdout).toContain("is answered through isp1");
    expect(lab("fail", "isp3").code).not.toBe(0);
  });

  it("takes a killed web server out of IngressService web, and puts it back when it runs again", { timeout: 360_000 }, () => {
    const fail = lab("fail", "web2");
    expect(fail.code, fail.all).toBe(0);
    expect(fail.stdout).toMatch(/web2's health check: Unhealthy/);
    expect(fail.stdout).toMatch(/routerd serve took web2 out of the service [\d.]+ s/);
    expect(fail.stdout).toMatch(/30 connections answered by web1 \d+, web3 \d+\n/);
    // The checks follow: the service is expected without web2 while it is down.
    const check = lab("check");
    expectAllPassed(check);
    expect(check.stdout).toContain("spread over web1,web3");
    expect(lab("status").stdout).toMatch(/IngressService web: .*web2=Unhealthy.*new connections go to web1,web3/);
    const heal = lab("heal", "web2");
    expect(heal.code, heal.all).toBe(0);
    expect(heal.stdout).toMatch(/routerd serve put web2 back into the service [\d.]+ s/);
    expect(heal.stdout).toMatch(/30 connections answered by web1 \d+, web2 \d+, web3 \d+\n/);
  });

  it("tears down completely (namespaces, processes, files), twice", { timeout: 120_000 }, () => {
    const seen = labProcesses();
    expect(seen.length).toBeGreaterThanOrEqual(13); // serve, 5 daemons, the ISPs' servers, the LAN client's, the web servers
    // The optional parts' processes: both chronyds, and wireguard-go where the kernel has no wireguard module.
    expect(seen.filter((p) => p.cmdline?.startsWith("chronyd\0")).length).toBe(2);
    // `down` removes an optional part's namespace and files even when the part is switched off now.
    const down = labWith({ ROUTERD_LAB_BGP: "0", ROUTERD_LAB_WIREGUARD: "0", ROUTERD_LAB_NTP: "0" }, "down");
    expect(down.code, down.all).toBe(0);
    expect(down.stdout).toContain("The lab is down");
    expect(down.stdout).toContain(`deleted namespace ${name}-road`);
    expectNothingLeft(seen);
    // wireguard-go's control sockets are host-wide: none of the lab's is left.
    expect(existsSync("/var/run/wireguard") ? readdirSync("/var/run/wireguard").filter((f) => f.startsWith(`${name}-`)) : []).toEqual([]);
    expect(lab("down").code).toBe(0);
    expect(lab("status").code).toBe(3);
  });

  it("keeps the static NAT walkthrough: npm run lab -- nat", { timeout: 180_000 }, () => {
    const up = lab("nat");
    expectAllPassed(up);
    expect(namespaces().sort()).toEqual([`${name}-isp`, `${name}-lan`, `${name}-router`]);
    expectAllPassed(lab("check"));
    const seen = labProcesses();
    expect(lab("down").code).toBe(0);
    expectNothingLeft(seen);
  });
});
