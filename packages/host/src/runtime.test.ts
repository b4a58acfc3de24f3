import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { systemRunner } from "./exec.js";
import { detectHostServices, loadKernelModule, loadableKernelModules, observeDropins, observeKernelModules, parseBuiltin, parseModulesDep, parseProcModules, removeDropin, writeDropin } from "./runtime.js";

function withDir(fn: (dir: string) => void | Promise<void>) {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), "routerd-runtime-"));
    try {
      await fn(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

const PROC_MODULES = ["vrf 40960 0 - Live 0x0000000000000000", "ip6_tunnel 45056 1 ip6_gre, Live 0x0000000000000000", "udp_tunnel 32768 2 vxlan,fou, Live 0x0000000000000000", ""].join("\n");

describe("kernel modules on the host", () => {
  it("reads /proc/modules with each module's users, and modules.builtin by module name", () => {
    expect(parseProcModules(PROC_MODULES)).toEqual([
      { module: "vrf", refcount: 0, holders: [] },
      { module: "ip6_tunnel", refcount: 1, holders: ["ip6_gre"] },
      { module: "udp_tunnel", refcount: 2, holders: ["vxlan", "fou"] },
    ]);
    expect(parseBuiltin("kernel/net/ipv4/ip_tunnel.ko\nkernel/net/netfilter/nf-tables.ko.xz\n")).toEqual(new Set(["ip_tunnel", "nf_tables"]));
  });

  it(
    "observes loaded and built-in modules; a kernel without module support has none to observe",
    withDir((dir) => {
      const sources = { procModules: join(dir, "modules"), sysModule: join(dir, "sys"), builtin: join(dir, "modules.builtin") };
      expect(observeKernelModules(sources)).toEqual([]);
      writeFileSync(sources.procModules, PROC_MODULES);
      writeFileSync(sources.builtin, "kernel/net/netfilter/nf_tables.ko\n");
      mkdirSync(join(sources.sysModule, "vrf"), { recursive: true });
      writeFileSync(join(sources.sysModule, "vrf", "initstate"), "live\n");
      mkdirSync(join(sources.sysModule, "tcp_cubic")); // built in, with parameters: no initstate
      const seen = new Map(observeKernelModules(sources).map((a) => [a.name, a.attributes.state]));
      expect(Object.fromEntries(seen)).toEqual({ vrf: "loaded", ip6_tunnel: "loaded", udp_tunnel: "loaded", nf_tables: "builtin", tcp_cubic: "builtin" });
    }),
  );
});

describe("modules the kernel can load", () => {
  const DEP = ["kernel/drivers/net/wireguard/wireguard.ko.xz: kernel/net/ipv6/ip6_udp_tunnel.ko.xz kernel/net/ipv4/udp_tunnel.ko.xz", "kernel/drivers/net/vrf.ko:", "kernel/net/ipv4/ip-gre.ko: kernel/net/ipv4/gre.ko", ""].join("\n");

  it("reads modules.dep by module name (the dependencies are listed under their own lines)", () => {
    expect(parseModulesDep(DEP)).toEqual(new Set(["wireguard", "vrf", "ip_gre"]));
  });

  it(
    "answers from modules.dep, and says no for every module where there is none (a kernel without /lib/modules)",
    withDir((dir) => {
      const dep = join(dir, "modules.dep");
      expect(loadableKernelModules(dep)("wireguard")).toBe(false);
      writeFileSync(dep, DEP);
      const loadable = loadableKernelModules(dep);
      expect([loadable("wireguard"), loadable("ip-gre"), loadable("pppoe")]).toEqual([true, true, false]);
    }),
  );

  it(
    "reads modules.dep once while it is unchanged (one stat per plan), and again when its mtime or size change",
    withDir((dir) => {
      const dep = join(dir, "modules.dep");
      writeFileSync(dep, DEP);
      const reads: string[] = [];
      let stats = 0;
      const io = {
        stat: (path: string) => {
          stats++;
          const s = statSync(path, { throwIfNoEntry: false });
          return s ? { mtimeMs: s.mtimeMs, size: s.size } : undefined;
        },
        read: (path: string) => (reads.push(path), readFileSync(path, "utf8")),
      };
      const first = loadableKernelModules(dep, io);
      expect([first("wireguard"), first("vrf"), first("pppoe")]).toEqual([true, true, false]);
      expect([reads.length, stats]).toEqual([1, 1]);
      // The next plan (serve's next cycle): the file is looked at, not read.
      const second = loadableKernelModules(dep, io);
      expect([second("wireguard"), second("pppoe")]).toEqual([true, false]);
      expect([reads.length, stats]).toEqual([1, 2]);
      // depmod rewrote it: same size, other mtime → read again.
      writeFileSync(dep, DEP.replace("vrf.ko", "xyz.ko"));
      utimesSync(dep, new Date(2030, 0, 1), new Date(2030, 0, 1));
      const third = loadableKernelModules(dep, io);
      expect([third("vrf"), third("xyz")]).toEqual([false, true]);
      expect(reads.length).toBe(2);
      // Other size, mtime put back to the cached one → read again.
      writeFileSync(dep, `${DEP}kernel/net/pppoe.ko:\n`);
      utimesSync(dep, new Date(2030, 0, 1), new Date(2030, 0, 1));
      expect(loadableKernelModules(dep, io)("pppoe")).toBe(true);
      expect(reads.length).toBe(3);
      // Gone (a kernel without /lib/modules): nothing loadable, nothing read.
      rmSync(dep);
      expect(loadableKernelModules(dep, io)("pppoe")).toBe(false);
      expect(reads.length).toBe(3);
    }),
  );
});

describe("loading a module", () => {
  const ctxWith = (dir: string, code: number, calls: string[] = []) => ({
    root: dir,
    stateDir: join(dir, "state"),
    runDir: join(dir, "run"),
    runner: { run: async (cmd: string, args: readonly string[]) => (calls.push([cmd, ...args].join(" ")), { code, stdout: "", stderr: code ? "modprobe: FATAL: Module wireguard not found." : "" }) },
  });

  it(
    "a required module that does not load fails; an optional one succeeds with a warning unless it is loaded after all",
    withDir(async (dir) => {
      const proc = join(dir, "modules");
      writeFileSync(proc, PROC_MODULES);
      const calls: string[] = [];
      expect(await loadKernelModule(ctxWith(dir, 0, calls), { module: "wireguard", optional: true }, proc)).toBeUndefined();
      expect(calls).toEqual(["modprobe -- wireguard"]);
      await expect(loadKernelModule(ctxWith(dir, 1), { module: "wireguard" }, proc)).rejects.toThrow("modprobe wireguard: modprobe: FATAL: Module wireguard not found.");
      const failed = await loadKernelModule(ctxWith(dir, 1), { module: "wireguard", optional: true }, proc);
      expect(failed).toEqual({ warning: "optional module not loaded (modprobe wireguard: modprobe: FATAL: Module wireguard not found.); not recorded, tried again on the next run" });
      // modprobe failed, but the kernel has it (someone loaded it meanwhile): no warning, the observation records it.
      writeFileSync(proc, `${PROC_MODULES}wireguard 118784 0 - Live 0x0000000000000000\n`);
      expect(await loadKernelModule(ctxWith(dir, 1), { module: "wireguard", optional: true }, proc)).toBeUndefined();
    }),
  );
});

describe("networkd and resolved drop-ins", () => {
  it(
    "detects the services a root uses: enabled (a .wants link) or running (/run/systemd/...)",
    withDir((root) => {
      expect(detectHostServices({ root })).toEqual({ networkd: false, resolved: false });
      mkdirSync(join(root, "etc/systemd/system/multi-user.target.wants"), { recursive: true });
      symlinkSync("/lib/systemd/system/systemd-networkd.service", join(root, "etc/systemd/system/multi-user.target.wants/systemd-networkd.service"));
      expect(detectHostServices({ root })).toEqual({ networkd: true, resolved: false });
      mkdirSync(join(root, "run/systemd/resolve"), { recursive: true });
      expect(detectHostServices({ root })).toEqual({ networkd: true, resolved: true });
    }),
  );

  it(
    "writes and removes only routerd's own drop-in files under the root",
    withDir(async (root) => {
      const ctx = { root, stateDir: join(root, "state"), runDir: join(root, "run"), runner: systemRunner };
      const path = "/etc/systemd/network/00-routerd-eth0.network";
      await writeDropin(ctx, { path, content: "[Match]\nName=eth0\n", service: "systemd-networkd" });
      expect(readFileSync(join(root, path), "utf8")).toBe("[Match]\nName=eth0\n");
      expect(observeDropins(ctx, [path, "/etc/systemd/network/00-routerd-eth1.network"])).toEqual([{ kind: "systemd.dropin", name: path, attributes: { path, content: "[Match]\nName=eth0\n" } }]);
      await expect(writeDropin(ctx, { path: "/etc/systemd/network/10-eth0.network", content: "" })).rejects.toThrow(/not one of routerd's drop-in names/);
      mkdirSync(join(root, "etc/systemd/resolved.conf.d"), { recursive: true });
      writeFileSync(join(root, "etc/systemd/resolved.conf.d/local.conf"), "[Resolve]\n");
      await expect(removeDropin(ctx, { path: "/etc/systemd/resolved.conf.d/local.conf" })).rejects.toThrow(/refusing to remove/);
      expect(existsSync(join(root, "etc/systemd/resolved.conf.d/local.conf"))).toBe(true);
      await removeDropin(ctx, { path, service: "systemd-networkd" });
      expect(existsSync(join(root, path))).toBe(false);
    }),
  );
});
