// The resources routerctl shows, merged from what is available: the config (the current generation, or
// --config), status.json (phase of the last reconcile) and, when routerd serve answers, the status fields
// each resource publishes now. Serve being down is not an error: the fields are then just unavailable.
import { existsSync, readFileSync } from "node:fs";
import { KINDS, kindDefinition } from "@routerd/api";
import { GenerationStore, parseOwnerKey, readStatuses, type ObjectStatus } from "@routerd/resource";
import { connectDaemon, daemonSocketPath, type DaemonConnection } from "@routerd/rpc";
import { parse as parseYaml } from "yaml";

export interface ResourceView {
  /** `Kind/name`. */
  id: string;
  kind: string;
  name: string;
  apiVersion?: string;
  /** Lifecycle phase of the last reconcile (status.json), or "-" before the first. */
  phase: string;
  reason?: string;
  message?: string;
  updatedAt?: string;
  /** The status fields it publishes (routerd serve's view); undefined when serve is not answering. */
  fields?: Record<string, unknown>;
  spec?: Record<string, unknown>;
  /** Artifacts its own teardown is responsible for (status.json). */
  artifacts: { kind: string; name: string }[];
  owner?: string;
}

export interface Collected {
  resources: ResourceView[];
  /** Where the spec came from (a generation, a file) or why there is none. */
  configSource: string;
  /** Why the published fields are missing, when they are. */
  fieldsUnavailable?: string;
}

interface ConfigResource {
  apiVersion?: string;
  kind: string;
  metadata: { name: string };
  spec?: Record<string, unknown>;
}

/** The config's resources: --config FILE, else the current generation's text. */
export function configResources(stateDir: string, configPath?: string): { resources: ConfigResource[]; source: string } {
  let text: string | undefined;
  let source: string;
  if (configPath) {
    text = readFileSync(configPath, "utf8");
    source = configPath;
  } else {
    const g = new GenerationStore(stateDir).newest();
    text = g?.config;
    source = g ? `generation ${g.generation}` : "no generation recorded yet (apply a config, or pass --config FILE)";
  }
  if (text === undefined) return { resources: [], source };
  const doc = parseYaml(text) as { spec?: { resources?: ConfigResource[] } } | null;
  return { resources: (doc?.spec?.resources ?? []).filter((r) => r && typeof r.kind === "string" && typeof r.metadata?.name === "string"), source };
}

interface Published {
  phase: string;
  message: string;
  details?: Record<string, unknown>;
}

/** routerd serve's per-resource status (with the published fields as details), or why it is unavailable. */
async function servePublished(runDir: string): Promise<Map<string, Published> | string> {
  let conn: DaemonConnection | undefined;
  try {
    conn = await connectDaemon(daemonSocketPath(runDir, "routerd", "core"), { connectTimeoutMs: 1000, callTimeoutMs: 2000 });
    const s = await conn.getStatus();
    return new Map(s.resources.map((r) => [r.name, { phase: r.phase, message: r.message, ...(r.detailsJson ? { details: JSON.parse(r.detailsJson) as Record<string, unknown> } : {}) }]));
  } catch {
    return `routerd serve is not answering at ${daemonSocketPath(runDir, "routerd", "core")}; status fields unavailable`;
  } finally {
    conn?.close();
  }
}

export async function collect(opts: { stateDir: string; runDir: string; configPath?: string; withFields?: boolean }): Promise<Collected> {
  const statuses: Map<string, ObjectStatus> = existsSync(opts.stateDir) ? readStatuses(opts.stateDir) : new Map();
  const config = configResources(opts.stateDir, opts.configPath);
  const published = opts.withFields === false ? "not asked" : await servePublished(opts.runDir);
  const byId = new Map<string, ResourceView>();
  const view = (kind: string, name: string): ResourceView => {
    const id = `${kind}/${name}`;
    let v = byId.get(id);
    if (!v) byId.set(id, (v = { id, kind, name, phase: "-", artifacts: [] }));
    return v;
  };
  for (const r of config.resources) {
    const v = view(r.kind, r.metadata.name);
    if (r.apiVersion) v.apiVersion = r.apiVersion;
    v.spec = r.spec ?? {};
  }
  for (const s of statuses.values()) {
    const o = parseOwnerKey(s.owner);
    const v = view(o.kind, o.name);
    Object.assign(v, { apiVersion: o.apiVersion, owner: s.owner, phase: s.phase, updatedAt: s.updatedAt, artifacts: s.artifacts });
    if (s.reason) v.reason = s.reason;
    if (s.message) v.message = s.message;
  }
  if (typeof published !== "string") {
    for (const v of byId.values()) {
      const p = published.get(v.id);
      v.fields = p?.details ?? {};
    }
  }
  for (const v of byId.values()) v.owner ??= v.apiVersion ? `${v.apiVersion}/${v.kind}/${v.name}` : undefined;
  const order = new Map(KINDS.map((k, i) => [k.kind, i]));
  const resources = [...byId.values()].sort((a, b) => (order.get(a.kind) ?? 999) - (order.get(b.kind) ?? 999) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { resources, configSource: config.source, ...(typeof published === "string" && opts.withFields !== false ? { fieldsUnavailable: published } : {}) };
}

/** `interface`, `Interfaces`, `IPv4StaticAddress` → the kind's own name; undefined when there is no such kind. */
export function resolveKind(word: string): string | undefined {
  const w = word.toLowerCase();
  const found = KINDS.find((k) => k.kind.toLowerCase() === w || `${k.kind.toLowerCase()}s` === w || (k.kind.toLowerCase().endsWith("y") && `${k.kind.toLowerCase().slice(0, -1)}ies` === w));
  return found?.kind;
}

export function kindNames(): string[] {
  return KINDS.map((k) => k.kind);
}

/** The status fields a kind provides (its provides table), when the kind declares one. */
export function providedFields(kind: string): string[] | undefined {
  const provides = (kindDefinition(kind) as { provides?: Record<string, unknown> } | undefined)?.provides;
  return provides ? Object.keys(provides) : undefined;
}
