// Every config kind declares a class and exactly one teardown contract (see the seeds' lifecycle contract).
import type { ArtifactKind } from "./artifact.js";
import type { TeardownRegistry } from "./teardown-registry.js";

export type ResourceClass =
  | "link"
  | "address"
  | "route"
  | "policy-routing"
  | "firewall"
  | "nat"
  | "address-set"
  | "system"
  | "probe"
  | "cluster"
  | "wan-acquisition"
  | "lan-service";

export type LifecycleContract =
  /** Generic teardown by artifact kind through the teardown registry. */
  | { type: "ArtifactKinds"; artifactKinds: readonly ArtifactKind[] }
  /** Resource-specific teardown driven by the object's status (e.g. stop a daemon, remove its addresses). */
  | { type: "TeardownLifecycle"; teardown: "resource"; artifactKinds: readonly ArtifactKind[] }
  /** Owns nothing on the host by itself; the reason says why. */
  | { type: "NoHostTeardownReason"; reason: string };

export interface LifecycleDeclaration {
  apiVersion: string;
  kind: string;
  class: ResourceClass;
  contract: LifecycleContract;
}

export function contractArtifactKinds(contract: LifecycleContract): readonly ArtifactKind[] {
  return contract.type === "NoHostTeardownReason" ? [] : contract.artifactKinds;
}

/** Problems with a set of declarations: missing contracts, unknown artifact kinds, empty reasons. */
export function checkLifecycleDeclarations(
  declarations: readonly LifecycleDeclaration[],
  teardown: TeardownRegistry,
): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const d of declarations) {
    const id = `${d.apiVersion}/${d.kind}`;
    if (seen.has(id)) problems.push(`${id} is declared twice`);
    seen.add(id);
    const c = d.contract as LifecycleContract | undefined;
    if (!c) {
      problems.push(`${id} has no teardown contract`);
      continue;
    }
    if (c.type === "NoHostTeardownReason") {
      if (!c.reason.trim()) problems.push(`${id}: NoHostTeardownReason needs a reason`);
      continue;
    }
    if (c.artifactKinds.length === 0) problems.push(`${id}: ${c.type} lists no artifact kinds`);
    for (const k of c.artifactKinds) {
      if (!teardown.has(k)) problems.push(`${id}: artifact kind ${k} is not in the teardown registry`);
    }
  }
  return problems;
}
