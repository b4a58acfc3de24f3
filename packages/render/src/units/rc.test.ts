// FreeBSD rc.d scripts: the per-instance form (`--supervisor rc.d`) and the TailscaleNode script, golden-tested,
// parsed by `sh -n` (and checkbashisms where it is installed), and run under sh with rc.subr replaced by a few
// shell functions, to show what rc.subr would be given: the exact argv after its eval, the environment the
// prestart sets, and a reload that reaches the daemon's own pid. Nothing runs on FreeBSD here.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TailscaleNodeSpec } from "@routerd/api";
import { describe, expect, it } from "vitest";
import { PROGRAMS } from "./programs.js";
import { rcInstanceName, rcScripts, renderRcEnable, renderRcInstanceScript, shArg } from "./rc.js";
import { renderTailscaleRc } from "./tailscale.js";

const UPDATE = process.env.ROUTERD_UPDATE_GOLDEN === "1";
const dir = new URL("./testdata/", import.meta.url).pathname;
const dhcp = PROGRAMS.find((p) => p.daemon === "dhcpv4-client")!;
const ARGS = ["--instance", "wan-1", "--run-dir", "/var/run/routerd", "--state-dir", "/var/db/routerd", "--interface", "em0", "--hostname", "router1"];

function golden(file: string, text: string) {
  if (UPDATE) writeFileSync(join(dir, file), text);
  expect(text).toBe(readFileSync(join(dir, file), "utf8"));
}

function withTmp<T>(fn: (tmp: string) => T): T {
  const tmp = mkdtempSync(join(tmpdir(), "routerd-rc-"));
  try {
    return fn(tmp);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Runs `script <arg>` under sh with rc.subr replaced by `stub` (shell functions). */
function runStubbed(tmp: string, script: string, stub: string, arg: string, env: Record<string, string> = {}) {
  const path = join(tmp, "script");
  writeFileSync(path, script.replace(". /etc/rc.subr", `load_rc_config() { :; }\nwarn() { echo "warn: $*" >&2; }\n${stub}`));
  return spawnSync("sh", [path, arg], { encoding: "utf8", env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env } });
}

const node = (extra: Partial<TailscaleNodeSpec>): TailscaleNodeSpec => ({ advertiseRoutes: [], advertiseExitNode: false, advertiseTags: [], acceptRoutes: false, acceptDNS: false, ssh: false, shieldsUp: false, state: "present", ...extra });

const hasCheckbashisms = spawnSync("sh", ["-c", "command -v checkbashisms"]).status === 0;

describe("per-instance rc.d scripts", () => {
  it("renders routerd_<daemon>_<instance> with the daemon's exact command line (golden)", () => {
    expect(rcInstanceName(dhcp, "wan-1")).toBe("routerd_dhcpv4_client_wan_1");
    golden("routerd_dhcpv4_client_wan_1.rc", renderRcInstanceScript(dhcp, "wan-1", ARGS, "/var/run/routerd"));
    golden("routerd_dhcpv4_client_wan_1.conf", renderRcEnable("routerd_dhcpv4_client_wan_1"));
  });

  it("renders a TailscaleNode's script with every `tailscale up` flag the spec implies (golden)", () => {
    const all = { hostname: "router1", loginServer: "https://headscale.example.net", authKeyFile: "/usr/local/etc/routerd/edge.key", advertiseRoutes: ["192.168.50.0/24", "fd00:50::/64"], advertiseTags: ["tag:router", "tag:edge"], advertiseExitNode: true, acceptRoutes: true, acceptDNS: true, ssh: true, shieldsUp: true };
    golden("routerd_tailscale_edge-1.rc", renderTailscaleRc("edge-1", node(all)));
  });

  it("every script parses with sh -n" + (hasCheckbashisms ? " and checkbashisms" : " (checkbashisms is not installed here)"), () => {
    const scripts = [
      ...rcScripts(PROGRAMS).values(),
      ...PROGRAMS.filter((p) => p.daemon).map((p) => renderRcInstanceScript(p, "a-b", ["--instance", "a-b", "--weird", "it's $HOME `x` \"q\" \\"], "/var/run/routerd")),
      renderTailscaleRc("edge", node({})),
    ];
    withTmp((tmp) => {
      scripts.forEach((text, i) => {
        const path = join(tmp, `s${i}`);
        writeFileSync(path, text);
        const r = spawnSync("sh", ["-n", path], { encoding: "utf8" });
        expect(r.status, `${text.split("\n")[3]}: ${r.stderr}`).toBe(0);
        if (hasCheckbashisms) expect(spawnSync("checkbashisms", ["--posix", path], { encoding: "utf8" }).status).toBe(0);
      });
    });
  });

  it("rc.subr's eval of command_args gives daemon(8) the argv exactly, whatever the arguments hold", () => {
    const weird = ["--instance", "wan-1", "--hostname", "it's $HOME `id` \"q\" \\ back", "--empty", ""];
    expect(shArg("")).toBe("''");
    const r = withTmp((tmp) => runStubbed(tmp, renderRcInstanceScript(dhcp, "wan-1", weird, tmp), `run_rc_command() { eval "set -- $command_args"; printf '%s\\n' "$@"; }`, "start"));
    expect(r.stderr).toBe("");
    const name = "routerd_dhcpv4_client_wan_1";
    expect(r.stdout.split("\n").slice(0, -1)).toEqual(["-r", "-S", "-T", name, "-P", `/var/run/${name}.pid`, "-p", `/var/run/${name}.child.pid`, "/usr/local/bin/routerd-dhcpv4-client", ...weird]);
  });

  it("prestart exports OTEL_SERVICE_NAME and the pipeline's environment file when serve wrote one", () => {
    const r = withTmp((tmp) => {
      spawnSync("mkdir", ["-p", join(tmp, "routerd")]);
      writeFileSync(join(tmp, "routerd/telemetry.env"), 'ROUTERD_TELEMETRY="/var/run/routerd/routerd/telemetry.json"\nOTEL_EXPORTER_OTLP_HEADERS="a=b c"\n');
      return runStubbed(tmp, renderRcInstanceScript(dhcp, "wan-1", ARGS, tmp), `run_rc_command() { eval "$start_precmd"; env; }`, "start");
    });
    expect(r.stdout.split("\n")).toEqual(expect.arrayContaining(["OTEL_SERVICE_NAME=routerd-dhcpv4-client", "ROUTERD_TELEMETRY=/var/run/routerd/routerd/telemetry.json", "OTEL_EXPORTER_OTLP_HEADERS=a=b c"]));
  });

  it("reload sends SIGHUP to the daemon's pid (the child pid file), not to daemon(8)", async () => {
    const child = spawn("sleep", ["30"], { stdio: "ignore" });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once("exit", (_c, sig) => resolve(sig)));
    try {
      const r = withTmp((tmp) => {
        writeFileSync(join(tmp, "child.pid"), `${child.pid}\n`);
        const script = renderRcInstanceScript(dhcp, "wan-1", ARGS, tmp).replace('child_pidfile="/var/run/${name}.child.pid"', `child_pidfile="${tmp}/child.pid"`);
        return runStubbed(tmp, script, `run_rc_command() { eval "$reload_cmd"; }`, "reload");
      });
      expect(r.status, r.stderr).toBe(0);
      expect(await exited).toBe("SIGHUP");
    } finally {
      child.kill();
    }
    const notRunning = withTmp((tmp) => runStubbed(tmp, renderRcInstanceScript(dhcp, "wan-1", ARGS, tmp).replace('child_pidfile="/var/run/${name}.child.pid"', `child_pidfile="${tmp}/none.pid"`), `run_rc_command() { eval "$reload_cmd"; }`, "reload"));
    expect([notRunning.status, notRunning.stdout.trim()]).toEqual([1, "routerd_dhcpv4_client_wan_1 is not running."]);
  });

  it("the TailscaleNode script runs `tailscale up` once tailscaled's socket exists; a failed up only warns", () => {
    const r = withTmp((tmp) => {
      const script = renderTailscaleRc("edge", node({ hostname: "router1" }))
        .replaceAll("/var/run/routerd/tailscale/edge.sock", join(tmp, "edge.sock"))
        .replace("/usr/local/bin/tailscale ", "false ")
        .replace("sleep 1", `python3 -c "import socket; socket.socket(socket.AF_UNIX).bind('${join(tmp, "edge.sock")}')"`);
      return runStubbed(tmp, script, `run_rc_command() { eval "$start_postcmd"; }`, "start");
    });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe("warn: tailscale up failed; tailscaled keeps running\n");
  });
});
