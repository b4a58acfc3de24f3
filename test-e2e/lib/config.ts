// Builds Router YAML documents for tests from resource snippets.
export interface ResourceDoc {
  apiVersion: string;
  kind: string;
  name: string;
  spec: Record<string, unknown>;
}

const GROUP: Record<string, string> = {
  Interface: "net.routerd.net/v1alpha1",
  IPv4StaticAddress: "net.routerd.net/v1alpha1",
  IPv4Route: "net.routerd.net/v1alpha1",
  NAT44Rule: "net.routerd.net/v1alpha1",
  EgressRoutePolicy: "net.routerd.net/v1alpha1",
  HealthCheck: "net.routerd.net/v1alpha1",
  IPAddressSet: "net.routerd.net/v1alpha1",
  Hostname: "net.routerd.net/v1alpha1",
  FirewallZone: "firewall.routerd.net/v1alpha1",
  FirewallPolicy: "firewall.routerd.net/v1alpha1",
  FirewallRule: "firewall.routerd.net/v1alpha1",
  PortForward: "firewall.routerd.net/v1alpha1",
  Sysctl: "system.routerd.net/v1alpha1",
  SysctlProfile: "system.routerd.net/v1alpha1",
  NTPClient: "system.routerd.net/v1alpha1",
  Package: "system.routerd.net/v1alpha1",
};

export function res(kind: string, name: string, spec: Record<string, unknown>): ResourceDoc {
  return { apiVersion: GROUP[kind] ?? "net.routerd.net/v1alpha1", kind, name, spec };
}

/** JSON is valid YAML, so the documents are written as JSON. */
export function routerYaml(resources: ResourceDoc[], name = "test"): string {
  return JSON.stringify(
    {
      apiVersion: "routerd.net/v1alpha1",
      kind: "Router",
      metadata: { name },
      spec: { resources: resources.map((r) => ({ apiVersion: r.apiVersion, kind: r.kind, metadata: { name: r.name }, spec: r.spec })) },
    },
    null,
    2,
  );
}
