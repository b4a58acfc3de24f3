// The daemon's status: phase and health, daemon-level conditions, per-resource state. Pure, in memory;
// hooks tell the kit what changed so it can persist state, emit events and update gRPC health.
import { setCondition, type ConditionChange } from "./conditions.js";
import type { Condition, ConditionInput, Health, JsonObject, Phase, ResourceState, ResourceUpdate } from "./types.js";

/** What daemon code may change; Starting and Stopping are the kit's. */
export interface StatusApi {
  readonly phase: Phase;
  readonly health: Health;
  setPhase(phase: "Running" | "Degraded"): void;
  /** A daemon-level condition. */
  setCondition(input: ConditionInput): void;
  /** Creates or updates a resource; fields left out keep their values. */
  setResource(name: string, update: ResourceUpdate): void;
  setResourceCondition(name: string, input: ConditionInput): void;
  removeResource(name: string): void;
  resource(name: string): ResourceState | undefined;
  resources(): ResourceState[];
  conditions(): Condition[];
  /** Free-form daemon details shown by GetStatus. */
  setDetails(details: JsonObject | undefined): void;
}

export interface StatusHooks {
  onPhase?(phase: Phase, previous: Phase): void;
  /** resource is "" for daemon-level conditions. */
  onCondition?(resource: string, change: ConditionChange): void;
  /** Anything persisted (conditions, resources) changed. */
  onChange?(): void;
}

/** The part of the status that survives a restart (state.json). */
export interface PersistedStatus {
  conditions: Condition[];
  resources: ResourceState[];
}

export type Lifecycle = "Starting" | "Up" | "Stopping";

const HEALTH_BY_PHASE: Record<Phase, Health> = {
  Starting: "NOT_SERVING",
  Running: "SERVING",
  Degraded: "SERVING",
  Stopping: "NOT_SERVING",
};

export class StatusModel implements StatusApi {
  private lifecycle: Lifecycle = "Starting";
  private daemonPhase: "Running" | "Degraded" = "Running";
  private daemonConditions: Condition[];
  private readonly resourceMap = new Map<string, ResourceState>();
  private detailsValue: JsonObject | undefined;

  constructor(
    private readonly hooks: StatusHooks = {},
    private readonly now: () => Date = () => new Date(),
    restored?: PersistedStatus,
  ) {
    this.daemonConditions = [...(restored?.conditions ?? [])];
    for (const r of restored?.resources ?? []) this.resourceMap.set(r.name, { ...r, conditions: [...r.conditions] });
  }

  get phase(): Phase {
    return this.lifecycle === "Up" ? this.daemonPhase : this.lifecycle;
  }

  get health(): Health {
    return HEALTH_BY_PHASE[this.phase];
  }

  get details(): JsonObject | undefined {
    return this.detailsValue;
  }

  setLifecycle(lifecycle: Lifecycle): void {
    this.withPhaseHook(() => {
      this.lifecycle = lifecycle;
    });
  }

  setPhase(phase: "Running" | "Degraded"): void {
    this.withPhaseHook(() => {
      this.daemonPhase = phase;
    });
  }

  setCondition(input: ConditionInput): void {
    const { list, change } = setCondition(this.daemonConditions, input, this.now());
    if (!change) return;
    this.daemonConditions = list;
    this.hooks.onCondition?.("", change);
    this.hooks.onChange?.();
  }

  setResource(name: string, update: ResourceUpdate): void {
    const current = this.resourceMap.get(name);
    const next: ResourceState = {
      name,
      kind: update.kind ?? current?.kind ?? "",
      phase: update.phase ?? current?.phase ?? "",
      message: update.message ?? current?.message ?? "",
      conditions: current?.conditions ?? [],
      updatedAt: current?.updatedAt ?? "",
    };
    const details = "details" in update ? update.details : current?.details;
    if (details !== undefined) next.details = details;
    if (current && sameResource(current, next)) return;
    next.updatedAt = this.now().toISOString();
    this.resourceMap.set(name, next);
    this.hooks.onChange?.();
  }

  setResourceCondition(name: string, input: ConditionInput): void {
    if (!this.resourceMap.has(name)) this.setResource(name, {});
    const current = this.resourceMap.get(name)!;
    const { list, change } = setCondition(current.conditions, input, this.now());
    if (!change) return;
    this.resourceMap.set(name, { ...current, conditions: list, updatedAt: this.now().toISOString() });
    this.hooks.onCondition?.(name, change);
    this.hooks.onChange?.();
  }

  removeResource(name: string): void {
    if (this.resourceMap.delete(name)) this.hooks.onChange?.();
  }

  resource(name: string): ResourceState | undefined {
    return this.resourceMap.get(name);
  }

  resources(): ResourceState[] {
    return [...this.resourceMap.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  conditions(): Condition[] {
    return [...this.daemonConditions];
  }

  setDetails(details: JsonObject | undefined): void {
    this.detailsValue = details;
  }

  persisted(): PersistedStatus {
    return { conditions: this.conditions(), resources: this.resources() };
  }

  private withPhaseHook(change: () => void): void {
    const before = this.phase;
    change();
    if (this.phase !== before) this.hooks.onPhase?.(this.phase, before);
  }
}

function sameResource(a: ResourceState, b: ResourceState): boolean {
  return (
    a.kind === b.kind && a.phase === b.phase && a.message === b.message && JSON.stringify(a.details) === JSON.stringify(b.details)
  );
}
