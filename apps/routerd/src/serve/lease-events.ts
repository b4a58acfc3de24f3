// Follows the events of the per-resource daemons whose state becomes artifacts (a DHCPv4 lease), so
// routerd serve reconciles as soon as a lease is bound, renewed, lost or released instead of at its next
// periodic pass. One watch per daemon instance the config wants; watches come and go with the config.
import { DHCPV4_CLIENT_DAEMON, DHCPV6_CLIENT_DAEMON, PPPOE_CLIENT_DAEMON, makeConfigView, type RouterConfig } from "@routerd/api";
import { traceStage } from "@routerd/resource";
import { connectDaemon, daemonSocketPath, type DaemonConnection } from "@routerd/rpc";

export interface EventSource {
  /** Config kind; one daemon instance per resource, named after it. */
  kind: string;
  daemon: string;
  topicPrefixes: string[];
}

/** Adding a daemon whose events should trigger a reconcile is one entry here. */
export const LEASE_EVENT_SOURCES: readonly EventSource[] = [
  { kind: "DHCPv4Client", daemon: DHCPV4_CLIENT_DAEMON, topicPrefixes: ["dhcpv4.lease."] },
  { kind: "DHCPv6PrefixDelegation", daemon: DHCPV6_CLIENT_DAEMON, topicPrefixes: ["dhcpv6."] },
  { kind: "PPPoESession", daemon: PPPOE_CLIENT_DAEMON, topicPrefixes: ["pppoe.session."] },
];

const RECONNECT_MS = 500;

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}

/** One instance: reconnects (resuming after the last event seen) when the daemon restarts; a (re)connect kicks too. */
async function follow(socket: string, topicPrefixes: string[], signal: AbortSignal, onEvent: () => void): Promise<void> {
  let afterSeq: number | undefined;
  while (!signal.aborted) {
    let conn: DaemonConnection | undefined;
    try {
      conn = await connectDaemon(socket, { connectTimeoutMs: 1000 });
      // From the daemon's newest event on, so nothing emitted while the stream is set up is missed.
      afterSeq ??= Number((await conn.getStatus()).lastEventSeq);
      traceStage(`serve: following ${socket}`);
      onEvent();
      for await (const e of conn.watchEvents({ topicPrefixes, signal, afterSeq })) {
        afterSeq = Number(e.seq);
        traceStage(`serve: event ${e.topic}`);
        onEvent();
      }
    } catch {
      /* daemon absent or restarting */
    } finally {
      conn?.close();
    }
    if (!signal.aborted) await pause(RECONNECT_MS, signal);
  }
}

/** Calls `onEvent` for every lease event of every daemon instance `config()` wants, until `signal` aborts. */
export async function watchLeaseEvents(runDir: string, signal: AbortSignal, config: () => RouterConfig | undefined, onEvent: () => void, syncMs = 1000): Promise<void> {
  const watches = new Map<string, AbortController>();
  while (!signal.aborted) {
    const want = new Map<string, { socket: string; topicPrefixes: string[] }>();
    const c = config();
    if (c) {
      const view = makeConfigView(c);
      for (const s of LEASE_EVENT_SOURCES) {
        for (const r of view.all(s.kind)) want.set(`${s.daemon}/${r.metadata.name}`, { socket: daemonSocketPath(runDir, s.daemon, r.metadata.name), topicPrefixes: s.topicPrefixes });
      }
    }
    for (const [key, ac] of watches) {
      if (want.has(key)) continue;
      ac.abort();
      watches.delete(key);
    }
    for (const [key, w] of want) {
      if (watches.has(key)) continue;
      const ac = new AbortController();
      watches.set(key, ac);
      void follow(w.socket, w.topicPrefixes, AbortSignal.any([signal, ac.signal]), onEvent);
    }
    await pause(syncMs, signal);
  }
  for (const ac of watches.values()) ac.abort();
}
