// For other routerd code: read probe states and follow transitions over routerd-healthcheck's socket.
import { credentials, Metadata, type ServiceError } from "@grpc/grpc-js";
import { connectDaemon, unixTarget, type ConnectOptions, type DaemonConnection } from "@routerd/rpc";
import { ProbesClient, type Probe } from "@routerd/rpc/gen/routerd/healthcheck/v1/healthcheck";
import { PROBE_KIND } from "./probe-kind.js";
import { isProbeState, type ProbeState } from "./state-machine.js";
import { TRANSITION_TOPIC, transitionFromEvent, type ProbeTransition } from "./transition-event.js";

/**
 * Every probe's state by name, from GetStatus. Throws DaemonUnavailableError when the daemon does not
 * answer: the caller decides what that means (routerd treats it as "unknown", never "unhealthy").
 */
export async function probeStates(socketPath: string, options?: ConnectOptions): Promise<Map<string, ProbeState>> {
  const conn = await connectDaemon(socketPath, options);
  try {
    const status = await conn.getStatus();
    const out = new Map<string, ProbeState>();
    for (const r of status.resources) if (r.kind === PROBE_KIND && isProbeState(r.phase)) out.set(r.name, r.phase);
    return out;
  } finally {
    conn.close();
  }
}

export interface WatchTransitionsOptions {
  /** Replay retained transitions after this event seq first (e.g. the last one seen before a reconnect). */
  afterSeq?: number;
  /** Ends the iteration without an error. */
  signal?: AbortSignal;
  connect?: ConnectOptions;
  /** Use this connection instead of opening one (it is then not closed at the end). */
  connection?: DaemonConnection;
}

/**
 * Probe transitions as they happen. Ends when `signal` aborts; throws when the daemon goes away. To
 * reconnect without losing any, call again with afterSeq = the last transition's seq: events are
 * numbered across restarts and the daemon replays what it retained.
 */
export async function* watchTransitions(socketPath: string, options: WatchTransitionsOptions = {}): AsyncGenerator<ProbeTransition> {
  const conn = options.connection ?? (await connectDaemon(socketPath, options.connect));
  try {
    const events = conn.watchEvents({
      topicPrefixes: [TRANSITION_TOPIC],
      ...(options.afterSeq !== undefined ? { afterSeq: options.afterSeq } : {}),
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
    });
    for await (const event of events) {
      const t = transitionFromEvent(event);
      if (t !== undefined) yield t;
    }
  } finally {
    if (options.connection === undefined) conn.close();
  }
}

/** Probes with counters and last result (and history when asked) from routerd.healthcheck.v1.Probes. */
export async function listProbes(socketPath: string, options: { includeHistory?: boolean; timeoutMs?: number } = {}): Promise<Probe[]> {
  const client = new ProbesClient(unixTarget(socketPath), credentials.createInsecure());
  try {
    return await new Promise<Probe[]>((resolve, reject) => {
      client.listProbes(
        { includeHistory: options.includeHistory ?? false },
        new Metadata(),
        { deadline: Date.now() + (options.timeoutMs ?? 5000) },
        (err: ServiceError | null, reply) => (err ? reject(err) : resolve(reply.probes)),
      );
    });
  } finally {
    client.close();
  }
}

/** One probe with its history; rejects with gRPC NOT_FOUND for an unknown name. */
export async function getProbe(socketPath: string, name: string, options: { timeoutMs?: number } = {}): Promise<Probe> {
  const client = new ProbesClient(unixTarget(socketPath), credentials.createInsecure());
  try {
    return await new Promise<Probe>((resolve, reject) => {
      client.getProbe({ name }, new Metadata(), { deadline: Date.now() + (options.timeoutMs ?? 5000) }, (err: ServiceError | null, reply) => {
        if (err) reject(err);
        else if (reply.probe === undefined) reject(new Error(`GetProbe(${name}) reply carries no probe`));
        else resolve(reply.probe);
      });
    });
  } finally {
    client.close();
  }
}
