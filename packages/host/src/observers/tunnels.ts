// Observers for what tunnels add besides their links: VXLAN flood entries (`bridge -j fdb`) and FOU/GUE
// receive ports (`ip -j fou`).
import { artifactNames, type ObservedArtifact } from "@routerd/resource";
import { CommandError, runJson } from "../exec.js";
import type { HostContext } from "../context.js";

interface FdbEntry {
  mac: string;
  ifname?: string;
  dev?: string;
  dst?: string;
}

const ZERO_MAC = "00:00:00:00:00:00";

/** The all-zeros entries with a destination: where a VXLAN link floods (one per remote endpoint). */
export async function observeFdb(ctx: HostContext): Promise<ObservedArtifact[]> {
  const entries = await runJson<FdbEntry[]>(ctx.runner, "bridge", ["-j", "fdb", "show"]);
  return entries
    .filter((e) => e.mac === ZERO_MAC && e.dst)
    .map((e) => {
      const ifname = e.ifname ?? e.dev ?? "";
      return { kind: "linux.fdb" as const, name: artifactNames.fdb(ifname, e.dst!), attributes: { ifname, dst: e.dst } };
    });
}

interface FouPort {
  port: number;
  ipproto?: number;
  gue?: null;
  family?: string;
}

/** FOU/GUE receive ports. Without the fou module there are none (the kernel then has no "fou" family). */
export async function observeFou(ctx: HostContext): Promise<ObservedArtifact[]> {
  let ports: FouPort[];
  try {
    ports = await runJson<FouPort[]>(ctx.runner, "ip", ["-j", "fou", "show"]);
  } catch (err) {
    if (err instanceof CommandError && /No such file or directory|Unknown family|not supported/i.test(err.message)) return [];
    throw err;
  }
  return ports.map((p) => ({
    kind: "linux.fou" as const,
    name: artifactNames.fou(p.port),
    attributes: { port: p.port, ...("gue" in p ? { encap: "gue" } : { encap: "fou", ipproto: p.ipproto }) },
  }));
}
