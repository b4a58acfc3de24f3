// "isp" namespace(s) with dnsmasq, one "router" namespace with the client, veth links between them.
import { Lab, ifname, sh } from "./netns.js";

export interface Wan {
  isp: string;
  ispIf: string;
  wanIf: string;
  /** The ISP side's address, e.g. 10.77.0.1 (/24). */
  server: string;
}

/** One ISP namespace linked to `router` with server address `<net>.1/24`. */
export function addWan(lab: Lab, router: string, role: string, net: string): Wan {
  const isp = lab.netns(role);
  const ispIf = ifname("di");
  const wanIf = ifname("dw");
  lab.veth(isp, ispIf, router, wanIf);
  const server = `${net}.1`;
  sh(["ip", "-n", isp, "addr", "add", `${server}/24`, "dev", ispIf]);
  return { isp, ispIf, wanIf, server };
}

/** Args that keep the client's own timers short enough for a test. */
export const FAST_CLIENT_ARGS = [
  "--retransmit-base-ms",
  "500",
  "--retransmit-max-ms",
  "2000",
  "--retransmit-jitter-ms",
  "100",
  "--renew-retransmit-min-ms",
  "1000",
];
