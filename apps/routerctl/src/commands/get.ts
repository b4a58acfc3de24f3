import type { Command, OptionValues } from "@routerd/cli";
import { collect, kindNames, providedFields, resolveKind, type ResourceView } from "../resources/collect.js";
import { age, fieldsText, parseFormat, serialize, table, type OutputFormat } from "../resources/format.js";
import { STATE_OPTIONS } from "./state-options.js";

/** `Kind[/name]` → a filter; an error message when the kind does not exist. */
export function parseTarget(word: string | undefined): { kind?: string; name?: string } | string {
  if (!word || word === "all") return {};
  const [k, ...rest] = word.split("/");
  const kind = resolveKind(k!);
  if (!kind) return `no kind ${JSON.stringify(k)}; kinds: ${kindNames().join(", ")}`;
  return rest.length ? { kind, name: rest.join("/") } : { kind };
}

/** The fields a resource shows: its kind's provides table when it has one, with the values it published. */
export function shownFields(r: ResourceView): Record<string, unknown> | undefined {
  if (!r.fields) return undefined;
  const provided = providedFields(r.kind);
  if (!provided) return r.fields;
  return Object.fromEntries(provided.filter((f) => f in r.fields!).map((f) => [f, r.fields![f]]));
}

/** -o/--json and the positional KIND[/NAME] of get and describe, or the message to print. */
export function parseInvocation(v: OptionValues, positionals: string[], needName: boolean): { format: OutputFormat; kind?: string; name?: string } | { error: string } {
  const parsed = parseFormat(v.output, Boolean(v.json));
  if ("error" in parsed) return parsed;
  const target = parseTarget(positionals[0]);
  if (typeof target === "string") return { error: target };
  if (positionals.length > 1 || (needName && !target.name)) return { error: needName ? "describe needs one KIND/NAME, e.g. Interface/wan" : "get takes one KIND[/NAME]" };
  return { format: parsed.format, ...target };
}

export const getCommand: Command = {
  name: "get",
  summary: "list resources with their phase and the status fields they provide",
  usage: "get [KIND[/NAME]] [-o table|json|yaml] [--state-dir DIR] [--run-dir DIR] [--config FILE]",
  description:
    "One line per resource: KIND/NAME, the phase of the last reconcile, how long ago it changed, and the status\n" +
    "fields its kind provides (what `*From` sources and `when.state` read) with their current values. Resources\n" +
    "come from the current config generation and status.json; the field values from routerd serve (when it is\n" +
    "not running, phases are still shown). KIND is case-insensitive and may be plural (interfaces).",
  positionals: [{ name: "KIND[/NAME]", description: "a kind (all resources of it) or one resource; omitted or `all`: everything", optional: true, complete: ["all", ...kindNames()] }],
  exitCodes: { 0: "listed (an empty list too)", 1: "no such kind, no such resource, or an unreadable state file" },
  examples: [
    { command: "routerctl get", description: "every resource" },
    { command: "routerctl get interfaces", description: "the interfaces, with the addresses they publish" },
    { command: "routerctl get DHCPv4Client/wan -o yaml", description: "one resource, everything known about it, as YAML" },
  ],
  seeAlso: ["routerctl describe", "routerctl status"],
  options: STATE_OPTIONS,
  async run(v, io, positionals) {
    const target = parseInvocation(v, positionals, false);
    if ("error" in target) {
      io.err(target.error);
      return 1;
    }
    const { format } = target;
    const got = await collect({ stateDir: String(v["state-dir"]), runDir: String(v["run-dir"]), ...(v.config ? { configPath: String(v.config) } : {}) });
    const rows = got.resources.filter((r) => (!target.kind || r.kind === target.kind) && (!target.name || r.name === target.name));
    if (target.name && !rows.length) {
      io.err(`routerctl: ${target.kind}/${target.name} not found (config: ${got.configSource})`);
      return 1;
    }
    if (format !== "table") {
      const list = rows.map((r) => ({ id: r.id, kind: r.kind, name: r.name, phase: r.phase, ...(r.reason ? { reason: r.reason } : {}), ...(r.message ? { message: r.message } : {}), ...(r.updatedAt ? { updatedAt: r.updatedAt } : {}), ...(r.fields ? { status: shownFields(r) } : {}) }));
      io.out(serialize(target.name ? list[0] : { resources: list, ...(got.fieldsUnavailable ? { note: got.fieldsUnavailable } : {}) }, format));
      return 0;
    }
    if (!rows.length) io.out(`No ${target.kind ? `${target.kind} ` : ""}resources (config: ${got.configSource}).`);
    else io.out(table(["NAME", "PHASE", "AGE", "STATUS"], rows.map((r) => [r.id, r.phase, age(r.updatedAt), r.message ? `${r.reason ?? ""}: ${r.message}` : fieldsText(shownFields(r))])));
    if (got.fieldsUnavailable && rows.length) io.err(`note: ${got.fieldsUnavailable}`);
    return 0;
  },
};
