// What the Router document itself holds besides its resources: every resource's metadata (name, labels and
// the original's ownerRefs and annotations) and spec.reconcile (how carefully routerd changes the host, and
// what it never touches).
import { NAME_PATTERN, t, type Infer } from "./schema.js";

export const metadataSchema = t.object({
  name: t.string({ pattern: NAME_PATTERN, patternHint: "a lowercase name (a-z, 0-9, '-'; at most 63 characters)" }),
  labels: t.optional(t.map(t.string({ minLength: 1 }), t.string())),
  annotations: t.optional(t.map(t.string({ minLength: 1 }), t.string()).describe("free notes for people and tools; routerd keeps them and does nothing with them")),
  ownerRefs: t.optional(
    t.array(
      t.object({
        apiVersion: t.optional(t.string({ minLength: 1 })),
        kind: t.string({ pattern: /^[A-Z][A-Za-z0-9]*$/, patternHint: "a kind" }),
        name: t.string({ pattern: NAME_PATTERN, patternHint: "a resource name" }),
      }),
      { minItems: 1 },
    ).describe("the resources this one belongs to (checked to exist; routerd derives what waits for what from the fields that refer to them)"),
  ),
});

export type ResourceMetadata = Infer<typeof metadataSchema>;

export const reconcileSchema = t.object({
  mode: t.withDefault(
    t.enum("progressive", "strict").describe("progressive: also change existing host objects the config describes; strict: only what routerd created or adopted (adopt the rest first)"),
    "progressive",
  ),
  protectedInterfaces: t.withDefault(t.array(t.string({ minLength: 1 }), { unique: true }).describe("interfaces (resource or Linux names) routerd never adopts, changes or removes anything on"), []),
  protectedZones: t.withDefault(t.array(t.string({ pattern: NAME_PATTERN, patternHint: "a FirewallZone name" }), { unique: true }).describe("FirewallZones whose traffic routerd's firewall always accepts, and whose interfaces are protected"), []),
});

export type ReconcileSpec = Infer<typeof reconcileSchema>;
