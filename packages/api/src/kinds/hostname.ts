import { formats } from "../formats.js";
import { API_GROUPS, defineKind } from "../kind.js";
import { t, type Infer } from "../schema.js";

export const hostnameSpec = t.object({
  hostname: formats.hostname(),
  managed: t.withDefault(t.bool().describe("false: only observe the host name, never set it"), true),
});
export type HostnameSpec = Infer<typeof hostnameSpec>;

export const hostnameKind = defineKind<HostnameSpec>({
  apiVersion: API_GROUPS.net,
  kind: "Hostname",
  description: "The system host name (kernel UTS name).",
  class: "system",
  contract: { type: "ArtifactKinds", artifactKinds: ["linux.hostname"] },
  supportsWhen: false,
  spec: hostnameSpec,
  status: (res) => ({ fields: { hostname: res.spec.hostname } }),
  provides: { hostname: "string" },
  check(res, ctx) {
    const all = ctx.all("Hostname");
    if (all.length > 1 && all[0] !== res) ctx.error(["hostname"], `only one Hostname resource is allowed (first is Hostname/${all[0]!.metadata.name})`);
  },
  intents: (res) => [
    { kind: "linux.hostname", name: "system", owner: res.owner, action: res.spec.managed ? "ensure" : "observe", applyWith: "hostname", attributes: { hostname: res.spec.hostname } },
  ],
});
