// The linux.link intent of a link routerd creates (VRF, VXLAN, IP tunnels): its type and parameters are
// attributes, so the executor knows how to make it and the teardown registry knows routerd made it.
import { artifactNames, type ArtifactIntent } from "@routerd/resource";
import type { Resource } from "../kind.js";
import { formats } from "../formats.js";

export type LinkData = Record<string, string | number | boolean>;

export interface CreatedLink {
  ifname: string;
  linkType: "vrf" | "vxlan" | "ipip" | "gre" | "ip6tnl";
  linkData: LinkData;
  mtu?: number;
  /** Enslave this link (a VXLAN into its bridge). */
  master?: string;
  /** Enslave these links to this one (a VRF's interfaces). */
  members?: string[];
}

export function createdLinkIntent(res: Resource, link: CreatedLink): ArtifactIntent {
  const data = Object.fromEntries(Object.entries(link.linkData).filter(([, v]) => v !== undefined));
  return {
    kind: "linux.link",
    name: artifactNames.link(link.ifname),
    owner: res.owner,
    action: "ensure",
    applyWith: "ip-batch",
    attributes: {
      ifname: link.ifname,
      linkType: link.linkType,
      linkData: data,
      adminUp: true,
      ...(link.mtu !== undefined ? { mtu: link.mtu } : {}),
      ...(link.master !== undefined ? { master: link.master } : {}),
      ...(link.members !== undefined ? { members: [...link.members].sort() } : {}),
    },
  };
}

/** The Linux name of a link a resource creates: its ifname field, or its own name (checked as an ifname). */
export function createdIfname(res: Resource<{ ifname?: string }>): string {
  return res.spec.ifname ?? res.metadata.name;
}

const IFNAME = /^[A-Za-z0-9_][A-Za-z0-9_.:@-]{0,14}$/;

/** A resource whose name becomes a Linux interface name must fit one. */
export function ifnameProblem(name: string): string | undefined {
  return IFNAME.test(name) ? undefined : `${JSON.stringify(name)} is not a valid Linux interface name (1-15 characters, no spaces or slashes)`;
}

export { formats };
