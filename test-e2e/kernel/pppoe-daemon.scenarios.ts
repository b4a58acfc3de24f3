// routerd-pppoe-client against a real pppoe-server, without routerd serve: the daemon's own contract
// (session up with status fields, redial after an ISP hang-up, auth failure and back-off, clean hang-up).
import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Lab, sh, terminate } from "../lib/lab.js";
import { until } from "../lib/serve.js";
import { PppoeClientDaemon } from "./lib/pppoe-client.js";
import { PppoeIsp } from "./lib/pppoe-isp.js";
import { defineScenarios } from "./lib/scenarios.js";

// Generous: a loaded machine emulating the VM starts Node many times slower than CI does.
const WAIT = 600_000;
const SESSION = { interface: "wan0", ifname: "ppp0", authMethod: "both", ipv6: true, usePeerDNS: true, lcpEchoInterval: 2, lcpEchoFailure: 3, persist: true };

interface Bed {
  lab: Lab;
  rtr: string;
  isp: PppoeIsp;
  daemon: PppoeClientDaemon;
}

function bed(auth: "chap" | "pap"): Bed {
  const lab = new Lab("ppp", "kl");
  const [isp, rtr] = [lab.netns("isp"), lab.netns("rtr")];
  lab.veth(isp, "isp0", rtr, "wan0");
  const server = new PppoeIsp(lab, isp, "isp0", { auth, users: [{ name: "alice", password: "wonderland" }], ipv6: true });
  server.start();
  return { lab, rtr, isp: server, daemon: new PppoeClientDaemon(lab, rtr, "wan") };
}

/** Kept with the scenario's result (shown when it fails): the daemon's log and the ISP's pppd log. */
async function teardown(b: Bed, log: (line: string) => void): Promise<void> {
  const hooks = join(b.daemon.stateDir, "pppoe-client", "wan", "ppp", "hooks.log");
  if (existsSync(hooks)) log(`--- hooks.log:\n${readFileSync(hooks, "utf8")}`);
  log(`--- daemon output:\n${b.daemon.output.join("").split("\n").filter((l) => !l.includes('"pppd":true')).join("\n").slice(-5000)}`);
  log(`--- ISP pppd log:\n${b.isp.log().slice(-4000)}`);
  b.isp.stop();
  await b.lab.cleanup();
}

const ip4 = (b: Bed) => sh(["ip", "-n", b.rtr, "-4", "addr", "show", "dev", "ppp0"], { allowFail: true });

export default defineScenarios([
  {
    name: "CHAP: the session comes up with the status fields; the ISP hangs up and it redials; stop hangs up and removes its files",
    timeoutMs: 1_200_000,
    async run(ctx) {
      const b = bed("chap");
      try {
        b.daemon.writeConfig({ ...SESSION, username: "alice", password: "wonderland" });
        b.daemon.start();
        const up = await until("session Up with IPv4", () => b.daemon.upWithIpv4(), WAIT, 250);
        ctx.log(JSON.stringify(up));
        assert.equal(up!.details.device, "ppp0");
        assert.equal(up!.details.interface, "wan0");
        assert.equal(up!.details.peerAddress, "10.64.0.1");
        assert.equal(up!.details.gateway, "10.64.0.1");
        assert.match(String(up!.details.currentAddress), /^10\.64\.0\.1\d\d$/);
        assert.deepEqual(up!.details.dnsServers, ["192.0.2.53", "192.0.2.54"]);
        assert.ok(up!.details.connectedAt);
        assert.match(ip4(b), new RegExp(`inet ${String(up!.details.currentAddress).replaceAll(".", "\\.")} peer 10\\.64\\.0\\.1`));
        // No default route: routes are routerd's artifacts, not pppd's.
        assert.doesNotMatch(sh(["ip", "-n", b.rtr, "route"]), /default/);
        // Private files: 0700 directory, 0600 secrets, never the host's /etc/ppp.
        const pppDir = join(b.daemon.stateDir, "pppoe-client", "wan", "ppp");
        assert.equal(statSync(pppDir).mode & 0o777, 0o700);
        assert.equal(statSync(join(pppDir, "chap-secrets")).mode & 0o777, 0o600);
        assert.doesNotMatch(sh(["cat", "/etc/ppp/chap-secrets"]), /alice/);

        const firstPid = up!.details.pppdPid;
        const started = Date.now();
        assert.equal(b.isp.hangUpAll(), 1);
        await until("session down", async () => (await b.daemon.status())?.phase !== "Up", 60_000, 100);
        const again = await until("session Up again", async () => {
          const s = await b.daemon.status();
          return s?.phase === "Up" && s.details.currentAddress && s.details.pppdPid !== firstPid ? s : undefined;
        }, WAIT, 250);
        ctx.log(`redial after ISP hang-up: ${Date.now() - started} ms; ${JSON.stringify(again!.details)}`);
        assert.equal(again!.details.totalDials, 2);
        const topics = await b.daemon.topics();
        assert.deepEqual(topics.filter((t) => !t.endsWith("v6-up") && !t.endsWith("v4-up")), ["pppoe.session.dialing", "pppoe.session.up", "pppoe.session.down", "pppoe.session.dialing", "pppoe.session.up"]);

        const pid = Number(again!.details.pppdPid);
        await terminate(b.daemon.child!, 60_000);
        assert.throws(() => process.kill(pid, 0), "pppd is gone after the daemon stopped");
        assert.equal(existsSync(pppDir), false, "the options and secrets are removed");
        assert.match(sh(["ip", "-n", b.rtr, "link"]), /wan0/);
        assert.doesNotMatch(sh(["ip", "-n", b.rtr, "link"]), /ppp0/);
        await until("the ISP saw the hang-up", () => b.isp.sessionPids().length === 0, 60_000, 200);
      } finally {
        await teardown(b, ctx.log);
      }
    },
  },
  {
    name: "PAP with a password file; a wrong password is AuthFailed with back-off, and the fixed file plus redial brings it up",
    timeoutMs: 1_200_000,
    async run(ctx) {
      const b = bed("pap");
      try {
        const pwFile = b.lab.path("password");
        writeFileSync(pwFile, "wrong\n", { mode: 0o600 });
        b.daemon.writeConfig({ ...SESSION, authMethod: "pap", username: "alice", passwordFile: pwFile });
        b.daemon.start();
        const failed = await until("AuthFailed", async () => {
          const s = await b.daemon.status();
          return s?.phase === "AuthFailed" ? s : undefined;
        }, WAIT, 250);
        ctx.log(JSON.stringify(failed));
        assert.equal(failed!.details.lastEndReason, "AuthFailed");
        assert.equal(failed!.details.lastExitCode, 19);
        const wait = Date.parse(String(failed!.details.nextDialAt)) - Date.now();
        assert.ok(wait > 5_000, `the next dial waits (${wait} ms)`);
        // No tight loop: over the next 5 s no further dial starts.
        await new Promise((r) => setTimeout(r, 5000));
        assert.equal((await b.daemon.status())!.details.totalDials, 1);
        assert.ok((await b.daemon.topics()).includes("pppoe.session.auth-failed"));

        writeFileSync(pwFile, "wonderland\n");
        assert.equal((await b.daemon.command("redial")).ok, true);
        const up = await until("Up with the right password", () => b.daemon.upWithIpv4(), WAIT, 250);
        assert.equal(up!.details.consecutiveFailures, 0);
        assert.match(b.isp.log(), /PAP/);
      } finally {
        await teardown(b, ctx.log);
      }
    },
  },
]);
