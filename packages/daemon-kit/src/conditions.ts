// Kubernetes-style conditions: pure functions over a list, one entry per type.
import type { Condition, ConditionInput } from "./types.js";

export interface ConditionChange {
  condition: Condition;
  /** The previous status, undefined when the type is new. */
  previous: Condition | undefined;
  /** True when status changed (or the type is new): lastTransitionTime moved. */
  transitioned: boolean;
}

/**
 * Returns the list with `input` applied and what changed, or `changed: false` when nothing did.
 * lastTransitionTime moves only on a status change; reason and message may change without it.
 */
export function setCondition(
  list: readonly Condition[],
  input: ConditionInput,
  now: Date,
): { list: Condition[]; change: ConditionChange | undefined } {
  const index = list.findIndex((c) => c.type === input.type);
  const previous = index >= 0 ? list[index] : undefined;
  const reason = input.reason ?? "";
  const message = input.message ?? "";
  if (previous && previous.status === input.status && previous.reason === reason && previous.message === message) {
    return { list: [...list], change: undefined };
  }
  const transitioned = previous === undefined || previous.status !== input.status;
  const condition: Condition = {
    type: input.type,
    status: input.status,
    reason,
    message,
    lastTransitionTime: transitioned || !previous ? now.toISOString() : previous.lastTransitionTime,
  };
  const next = [...list];
  if (index >= 0) next[index] = condition;
  else next.push(condition);
  return { list: next, change: { condition, previous, transitioned } };
}

export function removeCondition(list: readonly Condition[], type: string): Condition[] {
  return list.filter((c) => c.type !== type);
}

export function findCondition(list: readonly Condition[], type: string): Condition | undefined {
  return list.find((c) => c.type === type);
}
