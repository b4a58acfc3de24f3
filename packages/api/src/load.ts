// load → validate: YAML text to a typed RouterConfig, or every issue with file, line, column, resource and
// field path. Invalid input yields no config, so nothing downstream can act on it.
import { IntentConflictError, mergeIntents, ownerKey, stableJson, type ArtifactIntent } from "@routerd/resource";
import { createRequire } from "node:module";
import { fastParseYaml } from "./fast-yaml.js";
import type { Node } from "yaml";

// The yaml library is loaded on first use: a run that reuses a cached validation never pays for it.
type YamlModule = typeof import("yaml");
let yamlModule: YamlModule | undefined;
const yaml = (): YamlModule => (yamlModule ??= createRequire(import.meta.url)("yaml") as YamlModule);
import { makeConfigView } from "./config-view.js";
import { API_GROUPS, type ApiVersion, type CheckContext, type Resource, type RouterConfig } from "./kind.js";
import { KINDS, kindDefinition } from "./kinds/index.js";
import { NAME_PATTERN, kindPhrase, nearest, t, type Issue, type ParseContext, type Path } from "./schema.js";
import { metadataSchema, reconcileSchema, type ReconcileSpec } from "./router-spec.js";
import { checkSources } from "./source-checks.js";
import { artifactIfname, protectedIfnames } from "./protected.js";
import type { SourceUse } from "./status-source.js";
import { whenReferences, whenSchema, type WhenPredicate } from "./when.js";

/** Kinds whose daemons put addresses or routes on their interface once they learn them. */
const CHANGES_ITS_INTERFACE = new Set(["DHCPv4Client", "IPv6DelegatedAddress"]);

export const ROUTER_API_VERSION = "routerd.net/v1alpha1";

export interface ConfigIssue {
  severity: "error" | "warning";
  file: string;
  line: number;
  column: number;
  /** `Kind/name`, when the issue belongs to a resource. */
  resource?: string;
  /** Field path such as `spec.candidates[0].gateway`. */
  field?: string;
  message: string;
  hint?: string;
}

export interface LoadResult {
  config?: RouterConfig;
  issues: ConfigIssue[];
}

export function formatPath(path: Path): string {
  return path.reduce<string>((acc, seg) => (typeof seg === "number" ? `${acc}[${seg}]` : acc ? `${acc}.${seg}` : seg), "");
}


type Locate = (path: Path, atKey?: boolean) => { line: number; col: number };

/**
 * Load and validate. The fast subset parser handles the usual config in milliseconds; when it cannot, or
 * when there is anything to report (which needs exact positions), the yaml library does the whole job.
 */
export function loadConfig(text: string, file: string): LoadResult {
  const fast = fastParseYaml(text);
  if (fast) {
    const locate: Locate = (path) => {
      const item = path.length >= 3 && path[0] === "spec" && path[1] === "resources" ? ((fast.value as { spec?: { resources?: unknown[] } })?.spec?.resources?.[path[2] as number] as object | undefined) : undefined;
      return (item && typeof item === "object" && fast.positions.get(item)) || { line: 1, col: 1 };
    };
    const result = validateData(fast.value, file, locate);
    if (result.issues.length === 0) return result;
  }
  return loadWithPositions(text, file);
}

function loadWithPositions(text: string, file: string): LoadResult {
  const { LineCounter, isMap, isSeq, parseAllDocuments } = yaml();
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const issues: ConfigIssue[] = [];
  const list = Array.isArray(docs) ? docs : [];
  const pos = (offset: number) => lineCounter.linePos(offset);
  if (list.length !== 1) {
    issues.push({ severity: "error", file, line: 1, column: 1, message: list.length === 0 ? "the file is empty" : `expected one YAML document, found ${list.length}` });
    return { issues };
  }
  const doc = list[0]!;
  for (const e of doc.errors) {
    const p = pos(e.pos[0]);
    issues.push({ severity: "error", file, line: p.line, column: p.col, message: `YAML: ${e.message.split("\n")[0]}` });
  }
  if (issues.length) return { issues };

  const locate: Locate = (path, atKey = false) => {
    let node: unknown = doc.contents;
    let offset = (doc.contents as Node | null)?.range?.[0] ?? 0;
    for (let i = 0; i < path.length; i++) {
      const seg = path[i]!;
      if (isMap(node)) {
        const pair = node.items.find((it) => (it.key as { value?: unknown } | null)?.value === seg);
        if (!pair) break;
        const last = i === path.length - 1;
        const target = (last && atKey ? pair.key : (pair.value ?? pair.key)) as Node | null;
        if (!target?.range) break;
        node = target;
        offset = target.range[0];
      } else if (isSeq(node) && typeof seg === "number") {
        const item = node.items[seg] as Node | undefined;
        if (!item?.range) break;
        node = item;
        offset = item.range[0];
      } else break;
    }
    return pos(offset);
  };
  return validateData(doc.toJS({ maxAliasCount: 100 }), file, locate);
}

function validateData(data: unknown, file: string, locate: Locate): LoadResult {
  const issues: ConfigIssue[] = [];
  const report = (severity: ConfigIssue["severity"], path: Path, message: string, opts: { hint?: string; resource?: string; fieldBase?: number; atKey?: boolean } = {}) => {
    const p = locate(path, opts.atKey);
    const field = formatPath(path.slice(opts.fieldBase ?? 0));
    issues.push({
      severity,
      file,
      line: p.line,
      column: p.col,
      ...(opts.resource ? { resource: opts.resource } : {}),
      ...(field ? { field } : {}),
      message,
      ...(opts.hint ? { hint: opts.hint } : {}),
    });
  };
  const reportIssues = (list: Issue[], resource?: string, fieldBase?: number) => {
    for (const i of list) report("error", i.path, i.message, { ...(i.hint ? { hint: i.hint } : {}), ...(resource ? { resource } : {}), ...(fieldBase !== undefined ? { fieldBase } : {}), ...(i.atKey ? { atKey: true } : {}) });
  };

  const top = topLevel(data);
  reportIssues(top.issues);
  if (!top.resources) return { issues: issues.sort((a, b) => a.line - b.line || a.column - b.column) };

  const resources: Resource[] = [];
  // Resources whose spec did not parse still have their references checked, so one run shows everything.
  const partial: { id: string; index: number; refs: Resource["refs"]; sources?: SourceUse[] }[] = [];
  const seen = new Map<string, number>();
  top.resources.forEach((raw, index) => {
    const base: Path = ["spec", "resources", index];
    const r = parseResource(raw, base);
    const id = r.id ?? `resources[${index}]`;
    reportIssues(r.issues, id, base.length);
    // Duplicates are found even when either copy has other errors, so one run shows everything.
    if (r.id) {
      const first = seen.get(r.id);
      if (first !== undefined) {
        report("error", [...base, "metadata", "name"], `duplicate resource: ${r.id} is already defined at spec.resources[${first}]`, { resource: r.id, fieldBase: base.length });
        return;
      }
      seen.set(r.id, index);
    }
    if (!r.resource) {
      if (r.id) partial.push({ id: r.id, index, refs: r.refs, ...(r.sources ? { sources: r.sources } : {}) });
      return;
    }
    const p = locate(base);
    r.resource.index = index;
    r.resource.position = { file, line: p.line, column: p.col };
    resources.push(r.resource);
  });

  // References between resources.
  const names = new Map<string, Set<string>>();
  const addName = (kind: string, name: string) => (names.get(kind) ?? names.set(kind, new Set()).get(kind)!).add(name);
  for (const r of resources) addName(r.kind, r.metadata.name);
  for (const p of partial) {
    const kind = p.id.split("/")[0]!;
    addName(kind, p.id.split("/")[1]!);
  }
  const broken = new Set<number>();
  const checkRefs = (id: string, index: number, refs: Resource["refs"], when?: WhenPredicate) => {
    const base: Path = ["spec", "resources", index];
    for (const ref of refs) {
      if (ref.kinds.some((k) => names.get(k)?.has(ref.name))) continue;
      broken.add(index);
      const existing = ref.kinds.flatMap((k) => [...(names.get(k) ?? [])]);
      const near = nearest(ref.name, existing);
      report("error", [...base, ...ref.path], `no ${ref.kinds.join(" or ")} named ${JSON.stringify(ref.name)}`, {
        resource: id,
        fieldBase: base.length,
        hint: near ? `did you mean ${JSON.stringify(near)}?` : `it may name ${kindPhrase(ref.kinds)} resource${existing.length ? ` (existing: ${existing.join(", ")})` : " (none is defined)"}`,
      });
    }
    for (const target of when ? whenReferences(when) : []) {
      const [kind, name] = target.split("/") as [string, string];
      if (names.get(kind)?.has(name)) continue;
      broken.add(index);
      report("error", [...base, "spec", "when"], `when refers to ${target}, which is not defined`, { resource: id, fieldBase: base.length });
    }
  };
  for (const r of resources) checkRefs(`${r.kind}/${r.metadata.name}`, r.index, r.refs, r.when);
  for (const p of partial) checkRefs(p.id, p.index, p.refs);
  // What resources read from each other's status (*From, when.state): only configs that have any pay.
  if (top.resources.length && (partial.some((p) => p.sources) || resources.some((r) => r.sources || r.when))) {
    const ids = new Map([...resources.map((r) => [r.index, `${r.kind}/${r.metadata.name}`] as const), ...partial.map((p) => [p.index, p.id] as const)]);
    for (const i of checkSources([...resources, ...partial], (kind, name) => names.get(kind)?.has(name) ?? false)) {
      broken.add(i.index);
      const base: Path = ["spec", "resources", i.index];
      report("error", [...base, ...i.path], i.message, { resource: ids.get(i.index)!, fieldBase: base.length, ...(i.hint ? { hint: i.hint } : {}) });
    }
  }

  // Owners named in metadata.ownerRefs must exist.
  for (const r of resources) {
    r.metadata.ownerRefs?.forEach((o, i) => {
      if (names.get(o.kind)?.has(o.name)) return;
      broken.add(r.index);
      report("error", ["spec", "resources", r.index, "metadata", "ownerRefs", i], `${o.kind}/${o.name} is not defined`, { resource: `${r.kind}/${r.metadata.name}`, fieldBase: 3 });
    });
  }
  const config: RouterConfig = { file, name: top.name!, resources, ...(top.reconcile ? { reconcile: top.reconcile } : {}) };
  if (top.reconcile) checkReconcile(top.reconcile, resources, names, report);
  const view = makeConfigView(config);
  const sound = resources.filter((r) => !broken.has(r.index));
  // One check context for all resources (checks report synchronously, about the resource being checked).
  let checking = sound[0]!;
  const at = (path: Path): Path => ["spec", "resources", checking.index, "spec", ...path];
  const checkOpts = (hint?: string) => ({ resource: `${checking.kind}/${checking.metadata.name}`, fieldBase: 3, ...(hint ? { hint } : {}) });
  const checkContext: CheckContext = {
    ...view,
    error: (path, message, hint) => report("error", at(path), message, checkOpts(hint)),
    warn: (path, message, hint) => report("warning", at(path), message, checkOpts(hint)),
  };
  for (const r of sound) {
    const check = kindDefinition(r.kind)!.check;
    if (!check) continue;
    checking = r;
    check(r, checkContext);
  }

  {
    // Two resources wanting the same artifact differently (e.g. one sysctl key, two values).
    // Merged per artifact, so that every conflict is reported, not only the first.
    // Only artifacts wanted by more than one intent can conflict, so only those are grouped.
    const first = new Map<string, ArtifactIntent>();
    const shared = new Map<string, ArtifactIntent[]>();
    const guarded = config.reconcile ? protectedIfnames(config, view) : undefined;
    const refuse = (r: Resource, path: Path, ifname: string) =>
      report("error", ["spec", "resources", r.index, ...path], `would change ${ifname}, which spec.reconcile protects`, {
        resource: `${r.kind}/${r.metadata.name}`,
        fieldBase: 3,
        hint: "remove the resource (or its change to that interface), or take the interface out of protectedInterfaces/protectedZones",
      });
    for (const r of sound) {
      if (guarded?.size) {
        // Resources whose daemons change the interface later (a lease's address) are refused by their interface.
        const iface = (r.spec as { interface?: unknown }).interface;
        if (CHANGES_ITS_INTERFACE.has(r.kind) && typeof iface === "string" && guarded.has(view.ifname(iface))) refuse(r, ["spec", "interface"], view.ifname(iface));
        for (const i of kindDefinition(r.kind)!.intents(r, view)) {
          const ifname = artifactIfname(i.attributes);
          if (i.action === "ensure" && ifname !== undefined && guarded.has(ifname)) refuse(r, ["spec"], ifname);
        }
      }
      for (const i of kindDefinition(r.kind)!.intents(r, view)) {
        const key = `${i.kind}/${i.name}`;
        const prev = first.get(key);
        if (!prev) first.set(key, i);
        else (shared.get(key) ?? shared.set(key, [prev]).get(key)!).push(i);
      }
    }
    for (const group of shared.values()) {
      try {
        mergeIntents(group, (kind, a, b) => (kind === "nft.table" || stableJson(a) === stableJson(b) ? a : undefined));
      } catch (err) {
        if (!(err instanceof IntentConflictError)) throw err;
        for (const owner of err.owners) {
          const r = resources.find((x) => x.owner === owner);
          if (r) report("error", ["spec", "resources", r.index, "spec"], `conflicts with another resource: ${err.message}`, { resource: `${r.kind}/${r.metadata.name}`, fieldBase: 3 });
        }
      }
    }
  }

  issues.sort((a, b) => a.line - b.line || a.column - b.column);
  return issues.some((i) => i.severity === "error") ? { issues } : { config, issues };
}

const routerSchema = t.object({
  apiVersion: t.enum(ROUTER_API_VERSION),
  kind: t.enum("Router"),
  metadata: metadataSchema,
  spec: t.object({ resources: t.array(t.any()), reconcile: t.optional(reconcileSchema) }, { aliases: { apply: "reconcile" } }),
});

function topLevel(data: unknown): { issues: Issue[]; name?: string; resources?: unknown[]; reconcile?: ReconcileSpec } {
  const ctx: ParseContext = { issues: [], refs: [] };
  const parsed = routerSchema.parse(data, [], ctx);
  if (!parsed) return { issues: ctx.issues };
  return { issues: ctx.issues, name: parsed.metadata.name, resources: parsed.spec.resources, ...(parsed.spec.reconcile ? { reconcile: parsed.spec.reconcile } : {}) };
}

interface ParsedResource {
  id?: string;
  /** index and position are filled in by the caller. */
  resource?: Resource;
  refs: Resource["refs"];
  sources?: SourceUse[];
  issues: Issue[];
}

const RESOURCE_FIELDS = ["apiVersion", "kind", "metadata", "spec"];

function parseResource(raw: unknown, base: Path): ParsedResource {
  const ctx: ParseContext = { issues: [], refs: [] };
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    return { refs: [], issues: [{ path: base, message: "a resource must be a mapping with apiVersion, kind, metadata and spec" }] };
  }
  const r = raw as Record<string, unknown>;
  for (const key in r) {
    if (!RESOURCE_FIELDS.includes(key)) {
      const near = nearest(key, RESOURCE_FIELDS);
      ctx.issues.push({ path: [...base, key], atKey: true, message: `unknown field ${JSON.stringify(key)}`, ...(near ? { hint: `did you mean ${JSON.stringify(near)}?` } : {}) });
    }
  }
  const kindName = typeof r.kind === "string" ? r.kind : undefined;
  const def = kindName ? kindDefinition(kindName) : undefined;
  const metadata = metadataSchema.parse(r.metadata, [...base, "metadata"], ctx);
  const id = kindName && metadata ? `${kindName}/${metadata.name}` : undefined;
  if (!def) {
    const near = kindName ? nearest(kindName, KINDS.map((k) => k.kind)) : undefined;
    ctx.issues.push({
      path: [...base, "kind"],
      message: kindName ? `unknown kind ${JSON.stringify(kindName)}` : "kind is required",
      hint: near ? `did you mean ${JSON.stringify(near)}?` : `known kinds: ${KINDS.map((k) => k.kind).join(", ")}`,
    });
    return { ...(id ? { id } : {}), refs: [], issues: ctx.issues };
  }
  if (r.apiVersion !== def.apiVersion) {
    ctx.issues.push({
      path: [...base, "apiVersion"],
      message: r.apiVersion === undefined ? "apiVersion is required" : `${def.kind} is in ${def.apiVersion}, not ${JSON.stringify(r.apiVersion)}`,
      hint: `apiVersion: ${def.apiVersion}`,
    });
  }
  let spec: unknown = r.spec;
  let when: WhenPredicate | undefined;
  if (spec && typeof spec === "object" && !Array.isArray(spec) && "when" in spec) {
    const { when: w, ...rest } = spec as Record<string, unknown>;
    if (def.supportsWhen) {
      when = whenSchema.parse(w, [...base, "spec", "when"], ctx);
      spec = rest;
    } else {
      ctx.issues.push({ path: [...base, "spec", "when"], atKey: true, message: `${def.kind} does not support when` });
      spec = rest;
    }
  }
  const parsed = def.spec.parse(spec ?? {}, [...base, "spec"], ctx);
  const refs = ctx.refs.map((ref) => ({ ...ref, path: ref.path.slice(base.length) }));
  const sources = ctx.sources?.map((use) => ({ ...use, path: use.path.slice(base.length) }));
  if (parsed === undefined || !metadata || ctx.issues.length) return { ...(id ? { id } : {}), refs, ...(sources ? { sources } : {}), issues: ctx.issues };
  return {
    id: id!,
    refs,
    issues: [],
    resource: {
      apiVersion: def.apiVersion as ApiVersion,
      kind: def.kind,
      metadata,
      spec: parsed,
      ...(when ? { when } : {}),
      ...(sources ? { sources } : {}),
      owner: ownerKey(def.apiVersion, def.kind, metadata.name),
      refs,
      index: -1,
      position: { file: "", line: 0, column: 0 },
    },
  };
}

/** Protected names must name something: an interface (resource or Linux name) or a FirewallZone. */
function checkReconcile(
  spec: ReconcileSpec,
  resources: readonly Resource[],
  names: ReadonlyMap<string, ReadonlySet<string>>,
  report: (severity: ConfigIssue["severity"], path: Path, message: string, opts?: { hint?: string }) => void,
): void {
  const ifnames = new Set(resources.flatMap((r) => (r.kind === "Interface" ? [r.metadata.name, (r.spec as { ifname?: string }).ifname ?? r.metadata.name] : [])));
  spec.protectedInterfaces.forEach((name, i) => {
    if (!ifnames.has(name)) report("warning", ["spec", "reconcile", "protectedInterfaces", i], `no Interface is called or named ${name}`, { hint: "it is protected anyway, should one appear" });
  });
  spec.protectedZones.forEach((name, i) => {
    if (!names.get("FirewallZone")?.has(name)) report("error", ["spec", "reconcile", "protectedZones", i], `no FirewallZone named ${name}`);
  });
}

export { API_GROUPS };
