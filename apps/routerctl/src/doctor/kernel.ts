// What the kernel must offer, tested by asking it rather than by module lists (built-in modules do not show
// in /sys/module): nft check-mode transactions (parsed by the kernel, never committed) and read-only listings.
import { fail, ok, run, type DoctorCheck, type Finding } from "./check.js";

/** A table that only exists inside `nft -c`: the kernel validates it, nothing is created. */
const probe = (hook: string, rule = "") => `table ip routerd_doctor {\n chain c {\n  ${hook}\n  ${rule}\n }\n}\n`;

const FEATURES: { name: string; script: string; advice: string }[] = [
  { name: "nf_tables", script: probe("type filter hook input priority 0; policy accept;"), advice: "modprobe nf_tables (the kernel needs CONFIG_NF_TABLES)" },
  { name: "conntrack", script: probe("type filter hook forward priority 0;", "ct state established,related accept"), advice: "modprobe nf_conntrack (CONFIG_NF_CONNTRACK; the firewall matches connection state)" },
  { name: "NAT", script: probe("type nat hook postrouting priority 100;", "masquerade"), advice: "modprobe nf_nat nft_masq (CONFIG_NF_NAT, CONFIG_NFT_MASQ; NAT44Rule and PortForward need them)" },
  { name: "marks", script: probe("type filter hook prerouting priority -150;", "meta mark set ct mark"), advice: "modprobe nft_ct nft_meta (EgressRoutePolicy marks connections)" },
];

export const KERNEL_CHECKS: DoctorCheck[] = [
  {
    name: "kernel",
    run() {
      const out: Finding[] = [];
      if (run("nft", ["--version"]).code === undefined) return [fail("kernel", "cannot test nftables features without nft", "apt install nftables")];
      const list = run("nft", ["list", "tables"]);
      if (list.code !== 0) return [fail("kernel", `nft list tables failed: ${list.out}`, "run as root (CAP_NET_ADMIN), and modprobe nf_tables")];
      for (const f of FEATURES) {
        const r = run("nft", ["-c", "-f", "-"], f.script);
        out.push(r.code === 0 ? ok("kernel", `${f.name} supported`) : fail("kernel", `${f.name}: ${r.out.split("\n")[0]}`, f.advice));
      }
      const rules = run("ip", ["-j", "rule", "show"]);
      out.push(rules.code === 0 ? ok("kernel", "policy routing rules readable") : fail("kernel", `ip rule show failed: ${rules.out}`, "the kernel needs CONFIG_IP_MULTIPLE_TABLES (policy routing)"));
      return out;
    },
  },
];
