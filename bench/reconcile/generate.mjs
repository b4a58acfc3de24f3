#!/usr/bin/env node
// Generates the reconcile benchmark's inputs from one description, so routerd and the baseline apply the
// same state: a router YAML (Interface, IPv4StaticAddress, IPv4Route, PortForward), one `ip -batch` file
// and one `nft -f` file.
//
//   addresses  10.64.<k>.1/24 for k < addresses, spread over LAN veths rdb0..rdb<veths-1>
//   routes     10.<128 + i/256>.<i%256>.0/24; even i: via 10.64.<i%addresses>.254 (on link), odd i: dev only
//   forwards   tcp <10000+j> on the WAN veth rdbwan → 10.64.<j%addresses>.10:80
//
// Usage as a CLI: node bench/reconcile/generate.mjs OUT_DIR [--routes N] [--forwards N] [--addresses N]
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";

export const WAN = "rdbwan";

/** @param {{routes: number, forwards: number, addresses: number, veths?: number}} size */
export function benchShape(size) {
  const veths = size.veths ?? 8;
  if (size.addresses < 1 || size.addresses > 256) throw new Error("addresses must be 1-256 (one /24 each under 10.64.0.0/16)");
  if (size.routes > 128 * 256) throw new Error("at most 32768 routes fit in 10.128.0.0/9");
  if (size.forwards > 55535) throw new Error("at most 55535 forwards fit above port 10000");
  const lans = Array.from({ length: veths }, (_, v) => `rdb${v}`);
  const addresses = Array.from({ length: size.addresses }, (_, k) => ({ name: `a${k}`, ifname: lans[k % veths], iface: `lan${k % veths}`, address: `10.64.${k}.1`, prefix: 24 }));
  const routes = Array.from({ length: size.routes }, (_, i) => {
    const k = i % size.addresses;
    const destination = `10.${128 + Math.floor(i / 256)}.${i % 256}.0/24`;
    return i % 2 === 0
      ? { name: `r${i}`, destination, gateway: `10.64.${k}.254` }
      : { name: `r${i}`, destination, iface: addresses[k].iface, ifname: addresses[k].ifname };
  });
  const forwards = Array.from({ length: size.forwards }, (_, j) => ({ name: `f${j}`, port: 10000 + j, target: `10.64.${j % size.addresses}.10`, targetPort: 80 }));
  return { lans, addresses, routes, forwards };
}

/** Block YAML in the style of examples/: what an operator would write. */
export function routerYaml(shape) {
  const out = ["apiVersion: routerd.net/v1alpha1", "kind: Router", "metadata:", "  name: reconcile-bench", "spec:", "  resources:"];
  const res = (apiVersion, kind, name, spec) => out.push(`    - apiVersion: ${apiVersion}`, `      kind: ${kind}`, `      metadata: { name: ${name} }`, `      spec: { ${spec} }`);
  const net = "net.routerd.net/v1alpha1";
  res(net, "Interface", "wan", `ifname: ${WAN}`);
  shape.lans.forEach((ifname, v) => res(net, "Interface", `lan${v}`, `ifname: ${ifname}`));
  for (const a of shape.addresses) res(net, "IPv4StaticAddress", a.name, `interface: ${a.iface}, address: ${a.address}/${a.prefix}`);
  for (const r of shape.routes) res(net, "IPv4Route", r.name, `destination: ${r.destination}, ${r.gateway ? `gateway: ${r.gateway}` : `device: ${r.iface}`}`);
  for (const f of shape.forwards) {
    res("firewall.routerd.net/v1alpha1", "PortForward", f.name, `listen: { interface: wan, protocol: tcp, port: ${f.port} }, target: { address: ${f.target}, port: ${f.targetPort} }`);
  }
  return out.join("\n") + "\n";
}

/** The same links, addresses and routes as one `ip -batch` file. */
export function ipBatch(shape) {
  return [
    ...[WAN, ...shape.lans].map((l) => `link set dev ${l} up`),
    ...shape.addresses.map((a) => `address replace ${a.address}/${a.prefix} dev ${a.ifname}`),
    ...shape.routes.map((r) => `route replace ${r.destination} ${r.gateway ? `via ${r.gateway}` : `dev ${r.ifname}`} table main metric 0`),
  ].join("\n") + "\n";
}

/** The same port forwards as one nftables table, written by hand the way an operator would. */
export function nftFile(shape) {
  return [
    "table ip routerd_nat {",
    "\tchain prerouting {",
    "\t\ttype nat hook prerouting priority dstnat; policy accept;",
    ...shape.forwards.map((f) => `\t\tiifname "${WAN}" tcp dport ${f.port} dnat to ${f.target}:${f.targetPort}`),
    "\t}",
    "\tchain postrouting {",
    "\t\ttype nat hook postrouting priority srcnat; policy accept;",
    "\t}",
    "}",
  ].join("\n") + "\n";
}

export function writeBenchFiles(dir, size) {
  const shape = benchShape(size);
  mkdirSync(dir, { recursive: true });
  const files = { config: join(dir, "router.yaml"), ipBatch: join(dir, "baseline.ip"), nft: join(dir, "baseline.nft") };
  writeFileSync(files.config, routerYaml(shape));
  writeFileSync(files.ipBatch, ipBatch(shape));
  writeFileSync(files.nft, nftFile(shape));
  return { shape, files };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { routes: { type: "string", default: "10000" }, forwards: { type: "string", default: "1000" }, addresses: { type: "string", default: "200" } },
  });
  if (!positionals[0]) {
    process.stderr.write("usage: generate.mjs OUT_DIR [--routes N] [--forwards N] [--addresses N]\n");
    process.exit(2);
  }
  const { files } = writeBenchFiles(positionals[0], { routes: Number(values.routes), forwards: Number(values.forwards), addresses: Number(values.addresses) });
  process.stdout.write(`${Object.values(files).join("\n")}\n`);
}
