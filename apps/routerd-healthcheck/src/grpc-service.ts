// routerd.healthcheck.v1.Probes: the manager's views mapped to the generated types.
import { status as grpcStatus } from "@grpc/grpc-js";
import {
  ProbeState as ProtoProbeState,
  type Probe,
  type ProbeResult,
  type ProbeSpec,
  type ProbesServer,
} from "@routerd/rpc/gen/routerd/healthcheck/v1/healthcheck";
import { effectivePort, type ProbeConfig } from "./config.js";
import type { ProbeView } from "./manager.js";
import type { ProbeResultRecord } from "./runner.js";
import type { ProbeState } from "./state-machine.js";

const PROTO_STATE: Record<ProbeState, ProtoProbeState> = {
  Unknown: ProtoProbeState.PROBE_STATE_UNKNOWN,
  Passing: ProtoProbeState.PROBE_STATE_PASSING,
  Healthy: ProtoProbeState.PROBE_STATE_HEALTHY,
  Failing: ProtoProbeState.PROBE_STATE_FAILING,
  Unhealthy: ProtoProbeState.PROBE_STATE_UNHEALTHY,
};

export function toProtoState(state: ProbeState): ProtoProbeState {
  return PROTO_STATE[state];
}

export function fromProtoState(state: ProtoProbeState): ProbeState | undefined {
  return (Object.keys(PROTO_STATE) as ProbeState[]).find((k) => PROTO_STATE[k] === state);
}

function toProtoSpec(c: ProbeConfig): ProbeSpec {
  return {
    type: c.type,
    target: c.target,
    port: effectivePort(c) ?? 0,
    path: c.path ?? "",
    expectStatus: c.expectStatus ?? [],
    queryName: c.query?.name ?? "",
    queryType: c.query?.type ?? "",
    intervalMs: c.intervalMs,
    timeoutMs: c.timeoutMs,
    healthyThreshold: c.healthyThreshold,
    unhealthyThreshold: c.unhealthyThreshold,
    sourceAddress: c.sourceAddress ?? "",
    interface: c.interface ?? "",
    ...(c.fwmark !== undefined ? { fwmark: c.fwmark } : {}),
  };
}

function toProtoResult(r: ProbeResultRecord): ProbeResult {
  return { time: new Date(r.time), ok: r.ok, latencyMs: r.latencyMs, reason: r.reason, error: r.error };
}

export function toProtoProbe(v: ProbeView): Probe {
  return {
    name: v.name,
    spec: toProtoSpec(v.config),
    state: toProtoState(v.machine.state),
    usable: v.usable,
    stateSince: new Date(v.machine.since),
    stateReason: v.machine.reason,
    counters: v.counters,
    ...(v.lastResult !== undefined ? { lastResult: toProtoResult(v.lastResult) } : {}),
    history: v.history.map(toProtoResult),
    resumed: v.resumed,
  };
}

export interface ProbeSource {
  list(includeHistory: boolean): ProbeView[];
  get(name: string): ProbeView | undefined;
}

export function probesServer(source: () => ProbeSource | undefined): ProbesServer {
  return {
    listProbes(call, callback) {
      const probes = source()?.list(call.request.includeHistory) ?? [];
      callback(null, { probes: probes.map(toProtoProbe) });
    },
    getProbe(call, callback) {
      const view = source()?.get(call.request.name);
      if (view === undefined) {
        callback({ code: grpcStatus.NOT_FOUND, details: `no probe named ${JSON.stringify(call.request.name)}` });
        return;
      }
      callback(null, { probe: toProtoProbe(view) });
    },
  };
}
