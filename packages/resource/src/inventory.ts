// What the host has, per artifact kind. A kind whose observer failed is `unknown`: no creation, no cleanup.
import type { ArtifactKind, Attributes } from "./artifact.js";

export interface ObservedArtifact {
  kind: ArtifactKind;
  name: string;
  attributes: Attributes;
}

export type KindInventory =
  | { status: "known"; items: Map<string, ObservedArtifact> }
  | { status: "unknown"; reason: string };

export type Inventory = Map<ArtifactKind, KindInventory>;

export function knownKind(items: readonly ObservedArtifact[]): KindInventory {
  return { status: "known", items: new Map(items.map((i) => [i.name, i])) };
}

export function unknownKind(reason: string): KindInventory {
  return { status: "unknown", reason };
}

/** present / absent / unknown, the only three answers an observer may give. */
export function observe(inventory: Inventory, kind: ArtifactKind, name: string):
  | { state: "present"; artifact: ObservedArtifact }
  | { state: "absent" }
  | { state: "unknown"; reason: string } {
  const k = inventory.get(kind);
  if (!k) return { state: "unknown", reason: `${kind} was not observed` };
  if (k.status === "unknown") return { state: "unknown", reason: k.reason };
  const artifact = k.items.get(name);
  return artifact ? { state: "present", artifact } : { state: "absent" };
}
