// Kinds whose resources are network interfaces (Interface now; tunnels and sessions as they land). A kind
// declares it with `ifname` in its definition; fields that name an interface (t.interfaceRef()) accept
// any of them. Filled in by the kind registry, read lazily by schemas and config views.
import type { ConfigView, Resource } from "./kind.js";

export type IfnameOf = (resource: Resource<any>, view: ConfigView) => string;

/** The kinds, in registry order (an Interface of a name wins over a tunnel of the same name). */
export const INTERFACE_KINDS: string[] = [];
const ifnameOf = new Map<string, IfnameOf>();

export function registerInterfaceKind(kind: string, ifname: IfnameOf): void {
  if (!ifnameOf.has(kind)) INTERFACE_KINDS.push(kind);
  ifnameOf.set(kind, ifname);
}

/** The Linux name of the interface resource called `name`, or undefined when no interface kind has one. */
export function interfaceIfname(view: ConfigView, name: string): string | undefined {
  for (const kind of INTERFACE_KINDS) {
    const r = view.find(kind, name);
    if (r) return ifnameOf.get(kind)!(r, view);
  }
  return undefined;
}
