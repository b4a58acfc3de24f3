// The programs routerd drives: present, new enough, and answering.
import { fail, ok, run, versionAtLeast, warn, type DoctorCheck } from "./check.js";

function tool(check: string, cmd: string, args: string[], pattern: RegExp, min: string, install: string): DoctorCheck {
  return {
    name: check,
    run() {
      const r = run(cmd, args);
      if (r.code === undefined) return [fail(check, `${cmd} is not installed (not found in PATH)`, install)];
      const version = pattern.exec(r.out)?.[1];
      if (!version) return [warn(check, `cannot read the version from "${r.out.split("\n")[0]}"`, `check that ${cmd} is the real ${check}`)];
      if (!versionAtLeast(version, min)) return [fail(check, `${version} is older than ${min}`, `upgrade: ${install}`)];
      return [ok(check, version)];
    },
  };
}

export const TOOL_CHECKS: DoctorCheck[] = [
  {
    name: "node",
    run: () => (versionAtLeast(process.versions.node, "20.0.0") ? [ok("node", process.version)] : [fail("node", `${process.version} is older than 20`, "install Node.js 20 or newer")]),
  },
  // nft -j (JSON) and the table syntax routerd renders need 0.9.3 or newer.
  tool("nftables", "nft", ["--version"], /v(\d+\.\d+(?:\.\d+)?)/, "0.9.3", "apt install nftables"),
  // ip -j, ip -batch and `rule ... suppress_prefixlength` need iproute2 5.0 or newer.
  tool("iproute2", "ip", ["-V"], /iproute2-(?:ss)?(\d+\.\d+(?:\.\d+)?)/, "5.0.0", "apt install iproute2"),
  {
    name: "dnsmasq",
    run() {
      const r = run("dnsmasq", ["--version"]);
      if (r.code === undefined) return [warn("dnsmasq", "not installed", "apt install dnsmasq-base (needed by DHCPv4Server, DHCPv6Server and IPv6RouterAdvertisement)")];
      return [ok("dnsmasq", /version (\S+)/.exec(r.out)?.[1] ?? "installed")];
    },
  },
];
