// Which function runs each probe type: a table, so adding a type is one entry and one file.
import type { ProbeType } from "../config.js";
import { dnsProbe } from "./dns.js";
import { httpProbe } from "./http.js";
import { icmpProbe } from "./icmp.js";
import type { ProbeFn } from "./outcome.js";
import { tcpProbe } from "./tcp.js";

export type ProbeRegistry = Readonly<Record<ProbeType, ProbeFn>>;

export const DEFAULT_PROBES: ProbeRegistry = {
  icmp: icmpProbe,
  tcp: tcpProbe,
  http: httpProbe,
  https: httpProbe,
  dns: dnsProbe,
};
