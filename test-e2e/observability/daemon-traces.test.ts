// The daemons' own spans over OTLP: `routerd serve` in a namespace runs routerd-dhcpv4-client against a
// real DHCP server (dnsmasq in a second namespace, short T1 so a renewal follows within seconds) and
// exports traces to the OTLP receiver (otlp-receiver.mjs). The lease transactions arrive as
// dhcpv4.acquire (DISCOVER → ACK, a child span per phase) and dhcpv4.renew spans, with the daemon's resource;
// a SIGHUP reload arrives as a <daemon>.reload span.
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { res } from "../lib/config.js";
import { Lab } from "../dhcpv4-client/netns.js";
import { Dnsmasq } from "../dhcpv4-client/peers.js";
import { addWan, type Wan } from "../dhcpv4-client/topology.js";
import { Router, ensureBuilt, until } from "../dhcpv4/router.js";
import { attributes } from "./otlp-decode.mjs";
import { getJson, startReceiver, type OtlpSpan } from "./receiver.js";

interface Received {
  traces: { body: { resourceSpans: { resource: { attributes?: unknown[] }; scopeSpans: { spans: OtlpSpan[] }[] }[] } }[];
  errors: string[];
}

const lab = new Lab("d4trace");
let router: Router;
let wan: Wan;
let otlp: { child: ChildProcess; ports: { port: number } };

const attrs = (x: { attributes?: unknown[] } | undefined) => attributes(x?.attributes ?? []) as Record<string, unknown>;
const spans = () =>
  getJson<Received>(router.ns, `http://127.0.0.1:${otlp.ports.port}/received`).traces.flatMap((q) =>
    q.body.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans.map((span) => ({ resource: attrs(rs.resource), span, attrs: attrs(span) })))),
  );

beforeAll(async () => {
  ensureBuilt();
  router = new Router(lab);
  wan = addWan(lab, router.ns, "isp", "10.78.0");
  await Dnsmasq.start(lab, {
    ns: wan.isp,
    iface: wan.ispIf,
    range: "10.78.0.100,10.78.0.150,2m",
    leaseFile: lab.path("isp.leases"),
    extra: ["--dhcp-option=option:T1,4", "--dhcp-option=option:T2,8"],
  });
  otlp = await startReceiver(lab, router.ns, "otlp-receiver.mjs");
  router.writeConfig([
    res("Interface", "wan", { ifname: wan.wanIf }),
    res("DHCPv4Client", "wan", { interface: "wan" }),
    {
      ...res("ObservabilityPipeline", "telemetry", {
        signals: ["traces"],
        serviceNamespace: "edge",
        attributes: { site: "lab" },
        otlp: { endpoint: `http://127.0.0.1:${otlp.ports.port}`, insecure: true },
      }),
      apiVersion: "system.routerd.net/v1alpha1",
    },
  ]);
  router.startServe();
}, 120_000);

afterAll(async () => {
  if (process.env.ROUTERD_E2E_DEBUG) process.stderr.write(router?.serveLog.join("") ?? "");
  await router?.cleanup();
  expect(router.leftovers()).toEqual([]);
});

describe("daemon traces", () => {
  it("routerd-dhcpv4-client: DISCOVER → ACK as one dhcpv4.acquire span, then a renewal as dhcpv4.renew", { timeout: 120_000 }, async () => {
    const acquire = await until("a dhcpv4.acquire span", () => spans().find((x) => x.span.name === "dhcpv4.acquire"), 90_000, 1000);
    expect(acquire.resource).toMatchObject({ "service.name": "routerd-dhcpv4-client", "service.namespace": "edge", site: "lab" });
    expect(String(acquire.resource["service.instance.id"])).toMatch(/\/routerd-dhcpv4-client\/wan$/);
    expect(acquire.attrs).toMatchObject({ "routerd.instance": "wan", "dhcpv4.server": "10.78.0.1", "dhcpv4.lease_time": 120 });
    expect(String(acquire.attrs["dhcpv4.address"])).toMatch(/^10\.78\.0\.1\d\d\/24$/);
    expect(acquire.span.status?.code ?? 0).not.toBe(2); // not ERROR
    const children = spans().filter((x) => x.span.parentSpanId === acquire.span.spanId).map((x) => x.span);
    expect(children.map((c) => c.name)).toEqual(expect.arrayContaining(["selecting", "requesting"]));
    for (const c of children) {
      expect(c.traceId).toBe(acquire.span.traceId);
      expect(BigInt(c.startTimeUnixNano) >= BigInt(acquire.span.startTimeUnixNano)).toBe(true);
      expect(BigInt(c.endTimeUnixNano) <= BigInt(acquire.span.endTimeUnixNano)).toBe(true);
    }
    // T1 is 4 s: the renewal follows.
    const renew = await until("a dhcpv4.renew span", () => spans().find((x) => x.span.name === "dhcpv4.renew"), 60_000, 1000);
    expect(renew.attrs).toMatchObject({ "dhcpv4.from": "bound", "dhcpv4.address": acquire.attrs["dhcpv4.address"] });
    expect(BigInt(renew.span.startTimeUnixNano) > BigInt(acquire.span.endTimeUnixNano)).toBe(true);
  });

  it("a daemon's reload (SIGHUP, what routerd-dns-resolver's config reloads go through) is a span", { timeout: 60_000 }, async () => {
    process.kill(router.pid("wan")!, "SIGHUP");
    const reload = await until("a reload span", () => spans().find((x) => x.span.name.endsWith(".reload")), 45_000, 1000);
    expect(reload.span.name).toBe("dhcpv4-client.reload");
    expect(reload.resource).toMatchObject({ "service.name": "routerd-dhcpv4-client", "service.namespace": "edge" });
    expect(reload.attrs).toMatchObject({ "routerd.instance": "wan" });
    expect(reload.span.status?.code ?? 0).not.toBe(2);
  });
});
