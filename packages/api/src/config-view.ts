import type { ConfigView, Resource, RouterConfig } from "./kind.js";
import { UNKNOWN_RUNTIME, type RuntimeView } from "./runtime.js";

export function makeConfigView(config: RouterConfig, runtime: RuntimeView = UNKNOWN_RUNTIME): ConfigView {
  const byKind = new Map<string, Resource[]>();
  for (const r of config.resources) {
    const list = byKind.get(r.kind) ?? [];
    list.push(r);
    byKind.set(r.kind, list);
  }
  const view: ConfigView = {
    config,
    runtime,
    find: <S>(kind: string, name: string) => byKind.get(kind)?.find((r) => r.metadata.name === name) as Resource<S> | undefined,
    all: <S>(kind: string) => (byKind.get(kind) ?? []) as Resource<S>[],
    referrers: (kind, name) => config.resources.filter((r) => r.refs.some((ref) => ref.name === name && ref.kinds.includes(kind))),
    ifname(interfaceName) {
      const iface = view.find<{ ifname?: string }>("Interface", interfaceName);
      return iface?.spec.ifname ?? interfaceName;
    },
  };
  return view;
}
