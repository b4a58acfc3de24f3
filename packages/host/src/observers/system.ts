// Observers for host-global values and files: sysctl keys, the hostname, routerd-owned file blocks,
// routerd's systemd units, daemon instances and cluster leases.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { artifactNames, parseFileBlockName, parseRouteProtocolName, type ObservedArtifact } from "@routerd/resource";
import { rooted, type HostContext } from "../context.js";
import { findBlock } from "../file-blocks.js";

export function sysctlPath(key: string): string {
  return `/proc/sys/${key.replace(/\./g, "/")}`;
}

/** Reads only the keys asked for; a key the kernel does not have is absent. */
export function observeSysctls(keys: Iterable<string>): ObservedArtifact[] {
  const out: ObservedArtifact[] = [];
  for (const key of keys) {
    let value: string;
    try {
      value = readFileSync(sysctlPath(key), "utf8").trim().replace(/\s+/g, " ");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw err;
    }
    out.push({ kind: "linux.sysctl", name: key, attributes: { key, value } });
  }
  return out;
}

export function observeHostname(): ObservedArtifact[] {
  const hostname = readFileSync("/proc/sys/kernel/hostname", "utf8").trim();
  return [{ kind: "linux.hostname", name: "system", attributes: { hostname } }];
}

export function observeFileBlocks(ctx: HostContext, names: Iterable<string>): ObservedArtifact[] {
  const out: ObservedArtifact[] = [];
  for (const name of names) {
    const parsed = parseFileBlockName(name);
    if (!parsed) continue;
    const path = rooted(ctx, parsed.path);
    if (!existsSync(path)) continue;
    const block = findBlock(readFileSync(path, "utf8"), parsed.block);
    if (block !== undefined) out.push({ kind: "file", name, attributes: { path: parsed.path, block: parsed.block, content: block } });
  }
  return out;
}

/** A daemon instance exists while its socket or state directory does. */
export function observeDaemons(ctx: HostContext, names: Iterable<string>): ObservedArtifact[] {
  const out: ObservedArtifact[] = [];
  for (const name of names) {
    const [daemon, instance] = name.split("/") as [string, string];
    const socket = join(ctx.runDir, daemon, `${instance}.sock`);
    const state = join(ctx.stateDir, daemon, instance);
    if (existsSync(socket) || existsSync(state)) {
      out.push({ kind: "routerd.daemon", name: artifactNames.daemon(daemon, instance), attributes: { daemon, instance, socket, stateDir: state } });
    }
  }
  return out;
}

/** Where routerd records its claim on a (protocol, table): a marker in its state dir. */
export function routeProtocolMarker(ctx: Pick<HostContext, "stateDir">, name: string): string {
  return join(ctx.stateDir, "route-protocols", name);
}

/**
 * A daemon's FIB routes (one protocol in one table) are owned as one artifact: routerd's claim on that
 * (protocol, table), recorded by a marker in its state dir when the protocol's rt_protos.d registration is
 * written. The routes come and go with the daemon's sessions and are not listed (100k of them).
 */
export function observeRouteProtocols(ctx: HostContext, names: Iterable<string>): ObservedArtifact[] {
  const out: ObservedArtifact[] = [];
  for (const name of names) {
    const p = parseRouteProtocolName(name);
    if (p === undefined || !existsSync(routeProtocolMarker(ctx, name))) continue;
    out.push({ kind: "linux.route.protocol", name, attributes: { protocol: p.protocol, table: p.table } });
  }
  return out;
}

export function observeLeases(ctx: HostContext, paths: Iterable<string>): ObservedArtifact[] {
  return [...paths].filter((p) => existsSync(rooted(ctx, p))).map((p) => ({ kind: "routerd.lease" as const, name: p, attributes: { path: p } }));
}
