// The kit's JSON-friendly model to the generated proto types, by table.
import {
  ConditionStatus as ProtoConditionStatus,
  HealthStatus as ProtoHealth,
  Phase as ProtoPhase,
  Severity as ProtoSeverity,
  type Condition as ProtoCondition,
  type DaemonStatus as ProtoDaemonStatus,
  type Event as ProtoEvent,
  type ProcessStats as ProtoProcessStats,
  type ResourceState as ProtoResourceState,
} from "@routerd/rpc";
import type { Condition, ConditionStatus, DaemonEvent, Health, JsonObject, Phase, ResourceState, Severity } from "../types.js";

const PHASE: Record<Phase, ProtoPhase> = {
  Starting: ProtoPhase.PHASE_STARTING,
  Running: ProtoPhase.PHASE_RUNNING,
  Degraded: ProtoPhase.PHASE_DEGRADED,
  Stopping: ProtoPhase.PHASE_STOPPING,
};

const HEALTH: Record<Health, ProtoHealth> = {
  SERVING: ProtoHealth.HEALTH_STATUS_SERVING,
  NOT_SERVING: ProtoHealth.HEALTH_STATUS_NOT_SERVING,
};

const CONDITION_STATUS: Record<ConditionStatus, ProtoConditionStatus> = {
  True: ProtoConditionStatus.CONDITION_STATUS_TRUE,
  False: ProtoConditionStatus.CONDITION_STATUS_FALSE,
  Unknown: ProtoConditionStatus.CONDITION_STATUS_UNKNOWN,
};

const SEVERITY: Record<Severity, ProtoSeverity> = {
  debug: ProtoSeverity.SEVERITY_DEBUG,
  info: ProtoSeverity.SEVERITY_INFO,
  warning: ProtoSeverity.SEVERITY_WARNING,
  error: ProtoSeverity.SEVERITY_ERROR,
};

function date(iso: string): Date | undefined {
  return iso === "" ? undefined : new Date(iso);
}

function json(details: JsonObject | undefined): string {
  return details === undefined ? "" : JSON.stringify(details);
}

export function toProtoCondition(c: Condition): ProtoCondition {
  return {
    type: c.type,
    status: CONDITION_STATUS[c.status],
    reason: c.reason,
    message: c.message,
    lastTransitionTime: date(c.lastTransitionTime),
  };
}

export function toProtoResource(r: ResourceState): ProtoResourceState {
  return {
    name: r.name,
    kind: r.kind,
    phase: r.phase,
    message: r.message,
    conditions: r.conditions.map(toProtoCondition),
    detailsJson: json(r.details),
    updatedAt: date(r.updatedAt),
  };
}

export function toProtoEvent(e: DaemonEvent): ProtoEvent {
  return {
    seq: e.seq,
    time: new Date(e.time),
    topic: e.topic,
    severity: SEVERITY[e.severity],
    resource: e.resource,
    message: e.message,
    attributes: e.attributes,
  };
}

export interface StatusView {
  daemon: string;
  instance: string;
  pid: number;
  phase: Phase;
  health: Health;
  startedAt: string;
  conditions: Condition[];
  resources: ResourceState[];
  details: JsonObject | undefined;
  commands: string[];
  lastEventSeq: number;
  /** process.memoryUsage() at the time of the call. */
  memory: NodeJS.MemoryUsage;
}

export function toProtoProcess(m: NodeJS.MemoryUsage): ProtoProcessStats {
  return { rssBytes: m.rss, heapUsedBytes: m.heapUsed, heapTotalBytes: m.heapTotal, externalBytes: m.external, arrayBuffersBytes: m.arrayBuffers };
}

export function toProtoStatus(s: StatusView): ProtoDaemonStatus {
  return {
    daemon: s.daemon,
    instance: s.instance,
    pid: s.pid,
    phase: PHASE[s.phase],
    health: HEALTH[s.health],
    startedAt: date(s.startedAt),
    conditions: s.conditions.map(toProtoCondition),
    resources: s.resources.map(toProtoResource),
    detailsJson: json(s.details),
    commands: s.commands,
    lastEventSeq: s.lastEventSeq,
    process: toProtoProcess(s.memory),
  };
}
