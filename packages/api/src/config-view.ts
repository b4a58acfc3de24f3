import type { ConfigView, Resource, RouterConfig } from "./kind.js";
import { interfaceIfname } from "./interface-kinds.js";
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
    ifname: (interfaceName) => interfaceIfname(view, interfaceName) ?? interfaceName,
  };
  return view;
}

const indexes = new WeakMap<RouterConfig, Map<string, Map<string, Resource>>>();

/**
 * The first resource of `kind` for each key, computed once per config: lets "is this already used by an
 * earlier resource?" checks run in linear time on configs with thousands of resources.
 */
export function firstByKey<S>(view: ConfigView, kind: string, keyOf: (r: Resource<S>) => string): Map<string, Resource<S>> {
  let perConfig = indexes.get(view.config);
  if (!perConfig) indexes.set(view.config, (perConfig = new Map()));
  const id = `${kind}:${keyOf.toString()}`;
  let index = perConfig.get(id) as Map<string, Resource<S>> | undefined;
  if (!index) {
    index = new Map();
    for (const r of view.all<S>(kind)) if (!index.has(keyOf(r))) index.set(keyOf(r), r);
    perConfig.set(id, index as Map<string, Resource>);
  }
  return index;
}
