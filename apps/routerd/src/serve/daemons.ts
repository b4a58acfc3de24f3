// Which daemons a config needs, and with what arguments and config file. A data-driven registry: adding a
// daemon (a DHCP client, say) is one entry here.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  BGP_DAEMON,
  DHCPV4_CLIENT_DAEMON,
  DHCPV6_CLIENT_DAEMON,
  DNSMASQ,
  DNS_RESOLVER_DAEMON,
  durationMs,
  fwmarkValue,
  HEALTHCHECK_DAEMON,
  probeTarget,
  probeType,
  type BFDSpec,
  type BGPPeerSpec,
  type BGPRouterSpec,
  PPPOE_CLIENT_DAEMON,
  pppoeClientConfig,
  requestedLength,
  type ConfigView,
  type DHCPv4ClientSpec,
  type DHCPv6PrefixDelegationSpec,
  type HealthCheckSpec,
  type PPPoESessionSpec,
  VRRP_DAEMON,
} from "@routerd/api";
import { commandLineV8Flags, programEnvironment } from "@routerd/daemon-kit/v8-flags";
import { renderDnsResolverConfig, renderKeepalivedConfig, vrrpAddresses } from "@routerd/render";
import { ingressProbes } from "../core/ingress.js";
import type { DaemonSpec } from "./supervisor.js";
import { tailscaleDaemonKind } from "./tailscale.js";

export interface DaemonDirs {
  runDir: string;
  stateDir: string;
  /** Prefix for host files (the dnsmasq config lives at <root>/etc/routerd/dnsmasq.conf). */
  root: string;
}

/** Where the daemons' launchers live: beside this app in the workspace, or ROUTERD_DAEMON_DIR. */
export function daemonProgram(daemon: string): string {
  const base = process.env.ROUTERD_DAEMON_DIR ?? new URL("../../..", import.meta.url).pathname;
  return join(base, `routerd-${daemon}`, "bin", `routerd-${daemon}.js`);
}

function commonArgs(instance: string, dirs: DaemonDirs): string[] {
  return ["--instance", instance, "--run-dir", dirs.runDir, "--state-dir", dirs.stateDir];
}

/**
 * routerd's own daemons run with the same node as routerd, with the V8 flags and the environment their launcher's
 * shebang names (daemon-kit's v8-flags.ts).
 */
function nodeDaemon(daemon: string, args: string[], nodeFlags: string[] = []): Pick<DaemonSpec, "command" | "match" | "environment"> {
  const program = daemonProgram(daemon);
  const environment = programEnvironment(`routerd-${daemon}`);
  return { command: [process.execPath, ...nodeFlags, program, ...args], match: program, ...(Object.keys(environment).length > 0 ? { environment } : {}) };
}

/** Heap sizes node takes on its command line only (their launchers' shebangs name the same): daemon-kit's v8-flags.ts. */
const DNS_RESOLVER_NODE_FLAGS = commandLineV8Flags("routerd-dns-resolver");
const BGP_NODE_FLAGS = commandLineV8Flags("routerd-bgp");

export interface DaemonKind {
  daemon: string;
  specs(view: ConfigView, dirs: DaemonDirs): DaemonSpec[];
}

/** The probes of the enabled HealthChecks whose target is known (a lease-derived one may not be yet), then one per IngressService backend. */
export function healthcheckConfig(view: ConfigView): { probes: Record<string, unknown>[] } {
  return {
    probes: [...view.all<HealthCheckSpec>("HealthCheck").flatMap((r) => {
      const s = r.spec;
      const target = probeTarget(s, view);
      if (!s.enabled || target === undefined) return [];
      return {
        name: r.metadata.name,
        type: probeType(s),
        target,
        ...(s.port !== undefined ? { port: s.port } : {}),
        ...(s.path !== undefined ? { path: s.path } : {}),
        ...(s.expectStatus !== undefined ? { expectStatus: s.expectStatus } : {}),
        ...(s.query !== undefined ? { query: s.query } : {}),
        intervalMs: durationMs(s.interval),
        timeoutMs: durationMs(s.timeout),
        healthyThreshold: s.healthyThreshold,
        unhealthyThreshold: s.unhealthyThreshold,
        ...(s.sourceAddress !== undefined ? { sourceAddress: s.sourceAddress } : {}),
        ...(s.interface !== undefined ? { interface: view.ifname(s.interface) } : {}),
        ...(s.fwmark !== undefined ? { fwmark: fwmarkValue(s.fwmark) } : {}),
      };
    }), ...ingressProbes(view)],
  };
}

/** Where keepalived finds the HealthChecks' states and leaves the VirtualAddresses' roles. */
export function keepalivedPaths(dirs: Pick<DaemonDirs, "runDir" | "stateDir">): { verdictDir: string; roleDir: string } {
  return {
    // routerd-healthcheck's VERDICT_DIR.
    verdictDir: join(dirs.stateDir, HEALTHCHECK_DAEMON.daemon, HEALTHCHECK_DAEMON.instance, "verdicts"),
    roleDir: join(dirs.runDir, VRRP_DAEMON.daemon),
  };
}

type Named = { name: string; spec: unknown };

/** routerd-bgp's config: one BGPRouter, the BGPPeers naming it and their BFDs, specs as validated (defaults applied). */
export function bgpConfig(view: ConfigView, router: string): { router: Named; peers: Named[]; bfd: (Named & { ifname?: string })[] } {
  const r = view.find<BGPRouterSpec>("BGPRouter", router)!;
  const peers = view.all<BGPPeerSpec>("BGPPeer").filter((p) => p.spec.routerRef === router);
  const bfd = peers.flatMap((p) => {
    const b = p.spec.bfd !== undefined ? view.find<BFDSpec>("BFD", p.spec.bfd) : undefined;
    return b ? [{ name: b.metadata.name, spec: b.spec, ...(b.spec.interface !== undefined ? { ifname: view.ifname(b.spec.interface) } : {}) }] : [];
  });
  return { router: { name: router, spec: r.spec }, peers: peers.map((p) => ({ name: p.metadata.name, spec: p.spec })), bfd };
}

export const DAEMON_KINDS: readonly DaemonKind[] = [
  {
    daemon: HEALTHCHECK_DAEMON.daemon,
    specs(view, dirs) {
      if (view.all("HealthCheck").length === 0 && view.all("IngressService").length === 0) return [];
      const { daemon, instance } = HEALTHCHECK_DAEMON;
      const config = join(dirs.stateDir, daemon, instance, "config.json");
      return [
        {
          daemon,
          instance,
          ...nodeDaemon(daemon, [...commonArgs(instance, dirs), "--config", config]),
          config: { path: config, content: JSON.stringify(healthcheckConfig(view), null, 2) + "\n" },
        },
      ];
    },
  },
  {
    daemon: DHCPV4_CLIENT_DAEMON,
    specs: (view, dirs) =>
      view.all<DHCPv4ClientSpec>("DHCPv4Client").map((r) => {
        const s = r.spec;
        const args = [...commonArgs(r.metadata.name, dirs), "--interface", view.ifname(s.interface)];
        if (s.hostname) args.push("--hostname", s.hostname);
        if (s.clientID) args.push("--client-id", s.clientID);
        if (s.classID) args.push("--vendor-class", s.classID);
        if (s.requestedAddress) args.push("--requested-address", s.requestedAddress);
        if (!s.releaseOnStop) args.push("--no-release");
        return { daemon: DHCPV4_CLIENT_DAEMON, instance: r.metadata.name, ...nodeDaemon(DHCPV4_CLIENT_DAEMON, args) };
      }),
  },
  {
    daemon: DHCPV6_CLIENT_DAEMON,
    specs: (view, dirs) =>
      view.all<DHCPv6PrefixDelegationSpec>("DHCPv6PrefixDelegation").map((r) => {
        const s = r.spec;
        const args = [...commonArgs(r.metadata.name, dirs), "--interface", view.ifname(s.interface)];
        // The hint carries its length; validation made sure a prefixLength next to it agrees.
        if (s.hint) args.push("--hint", s.hint);
        else if (requestedLength(s) !== undefined) args.push("--prefix-length", String(requestedLength(s)));
        if (s.duidType !== "ll") args.push("--duid-type", s.duidType);
        if (!s.releaseOnStop) args.push("--no-release");
        return { daemon: DHCPV6_CLIENT_DAEMON, instance: r.metadata.name, ...nodeDaemon(DHCPV6_CLIENT_DAEMON, args) };
      }),
  },
  {
    // One routerd-bgp per BGPRouter; a changed config (a peer added) is a SIGHUP, applied as a diff.
    daemon: BGP_DAEMON,
    specs: (view, dirs) =>
      view.all<BGPRouterSpec>("BGPRouter").map((r) => {
        const instance = r.metadata.name;
        const config = join(dirs.stateDir, BGP_DAEMON, instance, "config.json");
        return {
          daemon: BGP_DAEMON,
          instance,
          ...nodeDaemon(BGP_DAEMON, [...commonArgs(instance, dirs), "--config", config, "--root", dirs.root], BGP_NODE_FLAGS),
          config: { path: config, content: JSON.stringify(bgpConfig(view, instance), null, 2) + "\n" },
        };
      }),
  },
  {
    // One resolver per DNSResolver; a changed config is delivered with SIGHUP (sockets and cache stay).
    daemon: DNS_RESOLVER_DAEMON,
    specs: (view, dirs) =>
      view.all("DNSResolver").map((r) => {
        const instance = r.metadata.name;
        const config = join(dirs.stateDir, DNS_RESOLVER_DAEMON, instance, "config.json");
        const content = renderDnsResolverConfig({ view, resolver: instance, stateDir: dirs.stateDir, root: dirs.root });
        return {
          daemon: DNS_RESOLVER_DAEMON,
          instance,
          ...nodeDaemon(DNS_RESOLVER_DAEMON, [...commonArgs(instance, dirs), "--config", config], DNS_RESOLVER_NODE_FLAGS),
          config: { path: config, content: JSON.stringify(content, null, 2) + "\n" },
        };
      }),
  },
  {
    // One per session; its config holds the credentials (written 0600 under the daemon's state directory).
    daemon: PPPOE_CLIENT_DAEMON,
    specs: (view, dirs) =>
      view
        .all<PPPoESessionSpec>("PPPoESession")
        .filter((r) => r.spec.enabled)
        .map((r) => {
          const instance = r.metadata.name;
          const config = join(dirs.stateDir, PPPOE_CLIENT_DAEMON, instance, "config.json");
          return {
            daemon: PPPOE_CLIENT_DAEMON,
            instance,
            ...nodeDaemon(PPPOE_CLIENT_DAEMON, [...commonArgs(instance, dirs), "--config", config]),
            config: { path: config, content: JSON.stringify(pppoeClientConfig(r, view), null, 2) + "\n" },
          };
        }),
  },
  {
    // keepalived for the VRRP VirtualAddresses: its config lives in routerd's state dir (never /etc), a change
    // is a SIGHUP (keepalived reloads and keeps the instances whose config did not change).
    daemon: VRRP_DAEMON.daemon,
    specs(view, dirs) {
      if (!vrrpAddresses(view).length) return [];
      const { daemon, instance } = VRRP_DAEMON;
      const base = join(dirs.stateDir, daemon, instance);
      const conf = join(base, "keepalived.conf");
      const run = join(dirs.runDir, daemon);
      return [
        {
          daemon,
          instance,
          // -n: stay in the foreground for the supervisor; -P: VRRP only; pid files away from /run.
          command: ["keepalived", "-n", "-P", "-l", "-G", "-f", conf, "-p", join(run, `${instance}.keepalived.pid`), "-r", join(run, `${instance}.vrrp.pid`)],
          match: conf,
          config: { path: conf, content: renderKeepalivedConfig(view, keepalivedPaths(dirs)) },
        },
      ];
    },
  },
  {
    // The LAN services dnsmasq: its config is a routerd artifact (written and checked by reconcile); a changed
    // config needs a restart, dnsmasq does not re-read its main config on SIGHUP.
    daemon: DNSMASQ.daemon,
    specs(view, dirs) {
      if (!view.all("DHCPv4Server").length && !view.all("DHCPv6Server").length && !view.all("IPv6RouterAdvertisement").length) return [];
      const conf = join(dirs.root, DNSMASQ.configPath);
      return [
        {
          daemon: DNSMASQ.daemon,
          instance: DNSMASQ.instance,
          command: ["dnsmasq", "--keep-in-foreground", `--conf-file=${conf}`, "--pid-file="],
          match: `--conf-file=${conf}`,
          config: { path: join(dirs.stateDir, DNSMASQ.daemon, DNSMASQ.instance, "config.digest"), content: readConfigDigest(conf) },
          restartOnConfigChange: true,
        },
      ];
    },
  },
  tailscaleDaemonKind,
];

/** The config's content as the supervisor's change signal (the file itself is written by reconcile). */
function readConfigDigest(path: string): string {
  try {
    return createHash("sha256").update(readFileSync(path)).digest("hex") + "\n";
  } catch {
    return "absent\n";
  }
}

export function daemonSpecs(view: ConfigView, dirs: DaemonDirs): DaemonSpec[] {
  return DAEMON_KINDS.flatMap((k) => k.specs(view, dirs));
}
