// chronyd for the NTP scenarios: servers in an ISP namespace and the router's own client, which reads Debian's
// layout inside the test root (sources.d for sources, the usual command socket). Every chronyd runs in the
// foreground (killed by the lab's cleanup) with -x: none touches the (shared) system clock.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Lab, nsExec } from "../dhcpv4-client/netns.js";
import { until, type Router } from "../dhcpv4/router.js";

/** Starts chronyd with this config in a namespace; `flags` e.g. ["-6"] for IPv6 sockets only. */
export function chronyd(lab: Lab, ns: string, name: string, conf: string[], flags: string[] = []): void {
  const path = lab.path(`${name}.conf`);
  writeFileSync(path, conf.join("\n") + "\n");
  lab.spawn(ns, ["chronyd", "-d", "-x", ...flags, "-u", "root", "-f", path]);
}

/** The router's chronyd: no NTP port of its own, sources from <root>/etc/chrony/sources.d. Returns its command socket. */
export async function routerChronyd(lab: Lab, router: Router): Promise<string> {
  const socket = join(router.root, "run/chrony/chronyd.sock");
  mkdirSync(join(router.root, "etc/chrony/sources.d"), { recursive: true });
  mkdirSync(join(router.root, "run/chrony"), { recursive: true, mode: 0o750 });
  chronyd(lab, router.ns, "client", [`sourcedir ${join(router.root, "etc/chrony/sources.d")}`, "port 0", `bindcmdaddress ${socket}`, "cmdport 0", `pidfile ${lab.path("client.pid")}`]);
  await until("the router's chronyd socket", () => existsSync(socket), 10_000);
  return socket;
}

/** `chronyc -n` against a chronyd's command socket ("" when it does not answer). */
export function chronyc(ns: string, socket: string, args: string[]): string {
  return nsExec(ns, ["chronyc", "-n", "-h", socket, ...args], { allowFail: true });
}
