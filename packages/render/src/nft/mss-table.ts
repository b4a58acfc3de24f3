// bridge routerd_mss: TCP MSS clamping on bridged VXLAN paths (VXLANTunnel tcpMSSClamp). A bridge forwards a
// frame too big for the tunnel by dropping it, with no fragmenting and no "packet too big" to the sender, so
// a LAN host with a 1500-byte MTU would stall on full-size segments. Rewriting the MSS of SYN and SYN-ACK in
// both directions makes both ends send segments the VXLAN device carries.
import { NFT_TABLES, vxlanClampMss, type ConfigView, type VXLANTunnelSpec } from "@routerd/api";
import { join } from "./matches.js";
import { ifnameMatch, renderTable } from "./text.js";

const ETHER_TYPES = { ipv4: "ip", ipv6: "ip6" } as const;

export function renderMssTable(view: ConfigView): { content: string; digest: string } {
  const rules: string[] = [];
  for (const vx of view.all<VXLANTunnelSpec>("VXLANTunnel")) {
    const mss = vxlanClampMss(vx.spec);
    if (!mss) continue;
    const dev = vx.spec.ifname ?? vx.metadata.name;
    rules.push(`# VXLANTunnel/${vx.metadata.name}: mtu ${vx.spec.mtu}`);
    for (const direction of ["iifname", "oifname"] as const) {
      for (const family of ["ipv4", "ipv6"] as const) {
        const size = mss[family];
        rules.push(join(ifnameMatch(direction, [dev]), `ether type ${ETHER_TYPES[family]}`, "tcp flags syn / syn,rst", `tcp option maxseg size > ${size}`, `tcp option maxseg size set ${size}`));
      }
    }
  }
  const { family, table } = NFT_TABLES.mss;
  return renderTable(family, table, [], [{ name: "forward", hook: "type filter hook forward priority filter; policy accept;", rules }]);
}
