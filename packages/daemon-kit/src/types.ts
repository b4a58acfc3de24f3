// The daemon kit's own model types: plain JSON-friendly values, mapped to the proto types at the gRPC edge.

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** Starting and Stopping belong to the kit; a daemon moves between Running and Degraded. */
export type Phase = "Starting" | "Running" | "Degraded" | "Stopping";
export type Health = "SERVING" | "NOT_SERVING";
export type ConditionStatus = "True" | "False" | "Unknown";
export type Severity = "debug" | "info" | "warning" | "error";

export interface Condition {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
  /** ISO 8601; changes only when status changes. */
  lastTransitionTime: string;
}

export type ConditionInput = Omit<Condition, "lastTransitionTime" | "reason" | "message"> & {
  reason?: string;
  message?: string;
};

export interface ResourceState {
  name: string;
  kind: string;
  phase: string;
  message: string;
  conditions: Condition[];
  details?: JsonObject;
  /** ISO 8601 of the last change. */
  updatedAt: string;
}

export type ResourceUpdate = Partial<Pick<ResourceState, "kind" | "phase" | "message" | "details">>;

export interface DaemonEvent {
  seq: number;
  /** ISO 8601. */
  time: string;
  topic: string;
  severity: Severity;
  /** "" for the daemon itself. */
  resource: string;
  message: string;
  attributes: Record<string, string>;
}

export interface EventInput {
  topic: string;
  message: string;
  severity?: Severity;
  resource?: string;
  attributes?: Record<string, string | number | boolean>;
}
