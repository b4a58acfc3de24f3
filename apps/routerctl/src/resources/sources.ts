// `*From` sources in a resource's spec (`gatewayFrom: {resource: DHCPv4Client/wan, field: gateway}`), and
// whether each has a value now, from the source resource's published status fields.
import type { ResourceView } from "./collect.js";

export interface SourceRef {
  /** Where in the spec, e.g. `gatewayFrom` or `dnsServerFrom[1]`. */
  path: string;
  resource: string;
  field: string;
  optional: boolean;
}

export interface SourceState extends SourceRef {
  state: "resolved" | "pending" | "unset" | "unknown";
  value?: unknown;
  detail?: string;
}

const isRef = (v: unknown): v is { resource: string; field: string; optional?: boolean } =>
  typeof v === "object" && v !== null && typeof (v as { resource?: unknown }).resource === "string" && typeof (v as { field?: unknown }).field === "string";

export function sourceRefs(spec: unknown, path = ""): SourceRef[] {
  if (Array.isArray(spec)) return spec.flatMap((x, i) => sourceRefs(x, `${path}[${i}]`));
  if (typeof spec !== "object" || spec === null) return [];
  return Object.entries(spec as Record<string, unknown>).flatMap(([k, v]) => {
    const here = path ? `${path}.${k}` : k;
    if (k.endsWith("From") && isRef(v)) return [{ path: here, resource: v.resource, field: v.field, optional: Boolean(v.optional) }];
    if (k.endsWith("From") && Array.isArray(v) && v.every(isRef)) return v.map((x, i) => ({ path: `${here}[${i}]`, resource: x.resource, field: x.field, optional: Boolean(x.optional) }));
    return sourceRefs(v, here);
  });
}

/** Each source with its current value; `byId` holds every resource with the fields it published. */
export function sourceStates(r: ResourceView, byId: ReadonlyMap<string, ResourceView>): SourceState[] {
  return sourceRefs(r.spec ?? {}).map((ref) => {
    const source = byId.get(ref.resource);
    if (!source) return { ...ref, state: "pending", detail: `${ref.resource} is not in the config` };
    if (!source.fields) return { ...ref, state: "unknown", detail: "routerd serve is not answering" };
    const value = ref.field === "phase" ? (source.fields.phase ?? source.phase) : source.fields[ref.field];
    const empty = value === undefined || value === null || value === "" || (Array.isArray(value) && value.length === 0);
    if (!empty) return { ...ref, state: "resolved", value };
    return ref.optional ? { ...ref, state: "unset", detail: `${ref.resource} has no ${ref.field} (optional: left unset)` } : { ...ref, state: "pending", detail: `${ref.resource} has no ${ref.field} yet` };
  });
}
