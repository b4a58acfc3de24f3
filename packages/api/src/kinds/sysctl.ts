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
  persistent: t.withDefault(t.bool().describe(`also write the value to ${SYSCTL_PERSIST_FILE}`), false),
});

export type SysctlSpec = Infer<typeof sysctlSpec>;

export function sysctlIntents(owner: OwnerKey, key: string, value: string, persistent: boolean): ArtifactIntent[] {
  const out: ArtifactIntent[] = [
    { kind: "linux.sysctl", name: key, owner, action: "ensure", applyWith: "sysctl", attributes: { key, value } },
  ];
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
  intents: (res) => sysctlIntents(res.owner, res.spec.key, res.spec.value, res.spec.persistent),
});
