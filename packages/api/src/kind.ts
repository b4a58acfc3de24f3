// What every config kind declares: identity, lifecycle class and contract, spec schema, semantic checks and
// the artifact intents it emits. One module per kind under kinds/.
import type { ArtifactIntent, LifecycleContract, OwnerKey, ResourceClass } from "@routerd/resource";
import type { Provides } from "./provides.js";
import type { ReconcileSpec, ResourceMetadata } from "./router-spec.js";
import type { Path, Schema } from "./schema.js";
import type { RuntimeView } from "./runtime.js";
import type { SourceUse } from "./status-source.js";
import type { WhenPredicate } from "./when.js";

export const API_GROUPS = {
  net: "net.routerd.net/v1alpha1",
  firewall: "firewall.routerd.net/v1alpha1",
  system: "system.routerd.net/v1alpha1",
  hybrid: "hybrid.routerd.net/v1alpha1",
} as const;

export type ApiVersion = (typeof API_GROUPS)[keyof typeof API_GROUPS];

export interface SourcePosition {
  file: string;
  line: number;
  column: number;
}

export interface Resource<S = unknown> {
  apiVersion: ApiVersion;
  kind: string;
  metadata: ResourceMetadata;
  spec: S;
  when?: WhenPredicate;
  owner: OwnerKey;
  /** References this resource makes to others (from the schema's ref fields). */
  refs: { path: (string | number)[]; name: string; kinds: readonly string[] }[];
  /** Its `*From` fields (status-sourced values); absent when it has none. */
  sources?: SourceUse[];
  /** Index in spec.resources, for locating fields in the source. */
  index: number;
  position: SourcePosition;
}

export interface RouterConfig {
  file: string;
  name: string;
  resources: Resource[];
  /** spec.reconcile: strict or progressive, and what routerd never touches. */
  reconcile?: ReconcileSpec;
}

/** Read access to the whole config, for references between resources. */
export interface ConfigView {
  readonly config: RouterConfig;
  find<S = unknown>(kind: string, name: string): Resource<S> | undefined;
  all<S = unknown>(kind: string): Resource<S>[];
  /** Resources whose ref fields name `kind`/`name`. */
  referrers(kind: string, name: string): Resource[];
  /** What daemons know now (leases, delegated prefixes). */
  readonly runtime: RuntimeView;
  /** The Linux ifname of an interface resource (any kind with `ifname` in its definition), or the name itself. */
  ifname(interfaceName: string): string;
}

export interface CheckContext extends ConfigView {
  error(path: Path, message: string, hint?: string): void;
  warn(path: Path, message: string, hint?: string): void;
}

export interface KindDefinition<S = unknown> {
  apiVersion: ApiVersion;
  kind: string;
  description: string;
  class: ResourceClass;
  contract: LifecycleContract;
  supportsWhen: boolean;
  spec: Schema<S>;
  /**
   * The status fields other resources may read through `*From` and `when.state` (the original API's
   * "provides" table); `phase` is implied. Every kind has one, even if empty.
   */
  provides: Provides;
  /**
   * What it publishes now under those names (omitted or empty values: not set). Pure: config and runtime
   * facts in; `facts` are fields routerd serve knows better (they override the result anyway).
   */
  status?(resource: Resource<S>, ctx: ConfigView, facts?: Readonly<Record<string, unknown>>): PublishedStatus;
  /** The kind is a network interface: fields naming an interface accept it, and this is its Linux name. */
  ifname?(resource: Resource<S>, view: ConfigView): string;
  /** Semantic checks beyond the schema (cross-field and cross-resource). Paths are relative to `spec`. */
  check?(resource: Resource<S>, ctx: CheckContext): void;
  intents(resource: Resource<S>, ctx: ConfigView): ArtifactIntent[];
  /**
   * Why what this resource already owns must be kept as it is right now (its daemon's state is unknown),
   * or undefined. Cleanup then leaves its artifacts alone, as for an undecidable `when`.
   */
  holdsExisting?(resource: Resource<S>, ctx: ConfigView): string | undefined;
}

/** A resource's published status: the provided fields it has a value for now. */
export interface PublishedStatus {
  /** Its own phase vocabulary (a DHCP client's Bound, ...); otherwise the lifecycle phase is published. */
  phase?: string;
  fields: Record<string, unknown>;
  /** Set when the facts behind the fields are not known now (a daemon not answering): missing fields are unknown, not unset. */
  unknown?: string;
}

/** Keeps the spec type attached to the definition while letting the registry hold all kinds. */
export function defineKind<S>(def: KindDefinition<S>): KindDefinition<S> {
  return def;
}
