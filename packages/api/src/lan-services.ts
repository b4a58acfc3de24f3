// The managed dnsmasq that serves DHCPv4, DHCPv6 and router advertisements on the LAN. routerd owns its
// config file (checked with `dnsmasq --test` before it replaces it) and its process. DNS is not its job:
// it always runs with port=0.
import { artifactNames, type ArtifactIntent, type OwnerKey } from "@routerd/resource";

export const DNSMASQ = {
  daemon: "dnsmasq",
  instance: "main",
  configPath: "/etc/routerd/dnsmasq.conf",
  block: "lan-services",
} as const;

export function dnsmasqIntents(owner: OwnerKey): ArtifactIntent[] {
  return [
    {
      kind: "file",
      name: artifactNames.fileBlock(DNSMASQ.configPath, DNSMASQ.block),
      owner,
      action: "ensure",
      applyWith: "file-block",
      // Content is rendered from every LAN-service resource together (see @routerd/render dnsmasq).
      attributes: { path: DNSMASQ.configPath, block: DNSMASQ.block, validate: "dnsmasq" },
    },
    {
      kind: "routerd.daemon",
      name: artifactNames.daemon(DNSMASQ.daemon, DNSMASQ.instance),
      owner,
      action: "ensure",
      applyWith: "supervisor",
      attributes: { daemon: DNSMASQ.daemon, instance: DNSMASQ.instance },
    },
  ];
}

/** The static IPv4 address of an Interface, if the config gives it one. */
export function staticAddressOf(view: { all<S>(kind: string): { spec: S }[] }, interfaceName: string): { address: string; prefixLength: number } | undefined {
  for (const r of view.all<{ interface: string; address: string }>("IPv4StaticAddress")) {
    if (r.spec.interface !== interfaceName) continue;
    const [address, len] = r.spec.address.split("/") as [string, string];
    return { address, prefixLength: Number(len) };
  }
  return undefined;
}
