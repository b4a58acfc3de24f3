import { artifactNames, type ArtifactIntent, type OwnerKey } from "@routerd/resource";
import { formats } from "../formats.js";
import { API_GROUPS, defineKind } from "../kind.js";
import { Schema, t, type Infer, type JsonSchema, type ParseContext, type Path } from "../schema.js";

/** Where persistent sysctls go; one routerd-owned block per key. */
export const SYSCTL_PERSIST_FILE = "/etc/sysctl.d/90-routerd.conf";

/** Accepts YAML scalars as operators write them and stores the kernel's string form. */
class SysctlValueSchema extends Schema<string> {
  parse(value: unknown, path: Path, ctx: ParseContext): string | undefined {
    if (typeof value === "boolean") return value ? "1" : "0";
    if (typeof value === "number" && Number.isInteger(value)) return String(value);
    if (typeof value === "string" && value.trim().length > 0 && !/[\n\r]/.test(value)) return value.trim().replace(/\s+/g, " ");
    ctx.issues.push({ path: [...path], message: `must be an integer, a boolean or a one-line string, not ${JSON.stringify(value)}` });
    return undefined;
  }
  jsonSchema(): JsonSchema {
    return this.withDescription({ type: ["string", "integer", "boolean"] });
  }
}

export const sysctlValue = new SysctlValueSchema();

export const sysctlSpec = t.object({
  key: formats.sysctlKey(),
  value: sysctlValue,
  runtime: t.withDefault(t.bool().describe("set the running kernel's value (false: only the persistent file)"), true),
  persistent: t.withDefault(t.bool().describe(`also write the value to ${SYSCTL_PERSIST_FILE}`), false),
  optional: t.withDefault(t.bool().describe("a key this kernel does not have is skipped instead of failing"), false),
  compare: t.withDefault(t.enum("exact", "atLeast").describe("atLeast: a larger value on the host is left as it is"), "exact"),
  expectedValue: t.optional(sysctlValue.describe("what the kernel reports once the value is set, when it differs from what is written")),
});

export type SysctlSpec = Infer<typeof sysctlSpec>;

/** How the running value is compared and written; only what differs from the plain case is recorded. */
export interface SysctlOptions {
  runtime?: boolean;
  optional?: boolean;
  compare?: "exact" | "atLeast";
  expectedValue?: string;
}

export function sysctlIntents(owner: OwnerKey, key: string, value: string, persistent: boolean, opts: SysctlOptions = {}): ArtifactIntent[] {
  const extra = {
    ...(opts.optional ? { optional: true } : {}),
    ...(opts.compare === "atLeast" ? { compare: "atLeast" } : {}),
    ...(opts.expectedValue !== undefined ? { expectedValue: opts.expectedValue } : {}),
  };
  const out: ArtifactIntent[] =
    opts.runtime === false ? [] : [{ kind: "linux.sysctl", name: key, owner, action: "ensure", applyWith: "sysctl", attributes: { key, value, ...extra } }];
  if (persistent) {
    out.push({
      kind: "file",
      name: artifactNames.fileBlock(SYSCTL_PERSIST_FILE, key),
      owner,
      action: "ensure",
      applyWith: "file-block",
      attributes: { path: SYSCTL_PERSIST_FILE, block: key, content: `${key} = ${value}\n` },
    });
  }
  return out;
}

export const sysctlKind = defineKind<SysctlSpec>({
  apiVersion: API_GROUPS.system,
  kind: "Sysctl",
  description: "One kernel parameter, reconciled to its value (never deleted).",
  class: "system",
  contract: { type: "ArtifactKinds", artifactKinds: ["linux.sysctl", "file"] },
  supportsWhen: true,
  spec: sysctlSpec,
  status: (res) => ({ fields: { key: res.spec.key, value: res.spec.value, dryRun: false } }),
  provides: { key: "string", value: "string", dryRun: "bool" },
  check(res, ctx) {
    if (!res.spec.runtime && !res.spec.persistent) ctx.error(["runtime"], "with runtime: false and persistent: false nothing is set", "set persistent: true, or remove runtime");
    if (res.spec.compare === "atLeast" && !/^-?\d+$/.test(res.spec.expectedValue ?? res.spec.value)) ctx.error(["compare"], "atLeast compares integers", "use compare: exact for this value");
  },
  intents: (res) => sysctlIntents(res.owner, res.spec.key, res.spec.value, res.spec.persistent, res.spec),
});
