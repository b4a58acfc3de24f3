// `npm run lab` (the README's first command) end to end, with its own namespace prefix and lab dir so it
// never collides with a lab a developer has up or with another test run: the home router under
// `routerd serve` comes up with every check passing, fails over and back (uplinks, a service's web servers),
// and `down` leaves nothing behind;
// then the static NAT walkthrough (`npm run lab -- nat`) does the same.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO, sh, tempDir, uniqueName } from "../lib/netns.js";

const name = uniqueName("rdlt").replace("-", "");
const tmp = tempDir("routerd-lab-test-");
const dir = join(tmp.dir, "lab");
const env = { ...process.env, ROUTERD_LAB_NAME: name, ROUTERD_LAB_DIR: dir };
const lab = (...args: string[]) => {
  const r = sh("bash", [join(REPO, "scripts/lab.sh"), ...args], { env, allowFail: true });
  if (process.env.ROUTERD_E2E_DEBUG) process.stderr.write(`--- lab ${args.join(" ")} (exit ${r.code})\n${r.stdout}${r.stderr}`);
  return { ...r, all: r.stdout + r.stderr };
};
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
    expect(namespaces().sort()).toEqual([`${name}-isp1`, `${name}-isp2`, `${name}-lan`, `${name}-router`]);
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
    const down = lab("down");
    expect(down.code, down.all).toBe(0);
    expect(down.stdout).toContain("The lab is down");
    expectNothingLeft(seen);
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
