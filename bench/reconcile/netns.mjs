// The benchmark's own network namespace: a WAN veth and LAN veths (peers stay inside, up), recreated empty
// for every "from empty" run. The host's own namespace is never touched.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { WAN } from "./generate.mjs";

function sh(cmd, args, allowFail = false) {
  const r = spawnSync(cmd, args, { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  if (!allowFail && r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (${r.status}): ${r.stderr || r.error}`);
  return r.stdout ?? "";
}

export class BenchNetns {
  constructor(lans) {
    this.name = `rdb-${randomBytes(3).toString("hex")}`;
    this.lans = lans;
    this.exists = false;
  }

  /** (Re)creates the namespace with its veths down and unaddressed, as routerd would find a fresh host. */
  reset() {
    this.destroy();
    sh("ip", ["netns", "add", this.name]);
    this.exists = true;
    const lines = ["link set lo up"];
    for (const l of [WAN, ...this.lans]) lines.push(`link add ${l} type veth peer name ${l}p`, `link set ${l}p up`);
    this.batch(lines.join("\n") + "\n");
  }

  batch(text) {
    const r = spawnSync("ip", ["-n", this.name, "-batch", "-"], { input: text, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`ip -batch in ${this.name} failed: ${r.stderr}`);
  }

  destroy() {
    if (this.exists || sh("ip", ["netns", "list"]).split("\n").some((l) => l.split(" ")[0] === this.name)) {
      sh("ip", ["netns", "del", this.name], true);
    }
    this.exists = false;
  }

  /** Runs a command in the namespace; resolves with exit code, output and wall time (ms). */
  run(args, { env, timeoutMs = 30 * 60_000 } = {}) {
    return new Promise((resolve) => {
      const start = performance.now();
      const child = spawn("ip", ["netns", "exec", this.name, ...args], { env: env ?? process.env, stdio: ["ignore", "pipe", "pipe"] });
      this.current = child;
      const out = [];
      const err = [];
      child.stdout.on("data", (b) => out.push(b));
      child.stderr.on("data", (b) => err.push(b));
      const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
      child.on("close", (code, signal) => {
        clearTimeout(timer);
        if (this.current === child) this.current = undefined;
        resolve({ code: code ?? 128, signal, ms: performance.now() - start, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() });
      });
    });
  }

  /** Kills the command running in the namespace (if any) and waits for it, so nothing writes after cleanup. */
  async killCurrent() {
    const child = this.current;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const closed = new Promise((resolve) => child.once("close", resolve));
    child.kill("SIGKILL");
    await closed;
  }

  /** Routes, addresses and DNAT rules as sorted lines: equal snapshots mean the same kernel state. */
  snapshot() {
    const routes = sh("ip", ["-n", this.name, "-4", "route", "show", "table", "all"])
      .split("\n")
      .filter((l) => l && !/^(local|broadcast) /.test(l) && !l.includes("table local"));
    const addresses = sh("ip", ["-n", this.name, "-4", "-o", "address", "show"])
      .split("\n")
      .map((l) => /^\d+:\s+(\S+)\s+inet\s+(\S+)/.exec(l))
      .filter(Boolean)
      .map((m) => `${m[1]} ${m[2]}`);
    const dnat = sh("ip", ["netns", "exec", this.name, "nft", "list", "ruleset"])
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l.includes("dnat to"));
    return { routes: routes.sort(), addresses: addresses.sort(), dnat: dnat.sort() };
  }
}
