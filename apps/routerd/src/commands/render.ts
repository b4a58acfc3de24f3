import type { RouterConfig } from "@routerd/api";
import type { Command, Io, OptionValues } from "@routerd/cli";
import { OUTPUT_KINDS, OUTPUT_KIND_NAMES, outputsToText, renderContext, renderOutputs, type RenderedOutput } from "../render/outputs.js";
import { COMMON_OPTIONS, CONFIG_OPTION, loadConfigOrExit, reportError } from "./common.js";

/** `--kind nft,dnsmasq` → the kinds, or an error naming the valid ones. */
export function parseKinds(value: string | boolean | undefined): string[] | string {
  if (value === undefined) return OUTPUT_KIND_NAMES;
  const kinds = String(value).split(",").map((k) => k.trim()).filter(Boolean);
  const unknown = kinds.filter((k) => !OUTPUT_KIND_NAMES.includes(k));
  return unknown.length ? `unknown --kind ${unknown.join(", ")}; choose from ${OUTPUT_KIND_NAMES.join(", ")}` : kinds;
}

/** --kind and --config → the rendered outputs; undefined (the problem printed) when either is wrong. */
export function renderFromOptions(v: OptionValues, io: Io): { config: RouterConfig; outputs: RenderedOutput[] } | undefined {
  const kinds = parseKinds(v.kind);
  if (typeof kinds === "string") {
    io.err(kinds);
    return undefined;
  }
  const config = loadConfigOrExit(v, io);
  if (!config) return undefined;
  return { config, outputs: renderOutputs(renderContext(config, { root: String(v.root), stateDir: String(v["state-dir"]), runDir: String(v["run-dir"]) }), kinds) };
}

export const renderCommand: Command = {
  name: "render",
  summary: "print what reconcile would write (nft tables, dnsmasq config, units, ...); touches nothing",
  usage: "render --config FILE [--kind KIND[,KIND...]] [--json]",
  description:
    "Renders the config the way reconcile would and prints each output with where it goes. Nothing on the\n" +
    "host is read or changed: DHCP leases and delegated prefixes count as unknown, so what depends on them is\n" +
    "left out (as reconcile does before a daemon has answered). Kinds:\n" +
    OUTPUT_KINDS.map((k) => `  ${k.name.padEnd(9)}${k.description}`).join("\n"),
  examples: [
    { command: "routerd render --config router.yaml --kind nft", description: "the nftables tables, as `nft -f` gets them" },
    { command: "routerd render --config router.yaml --kind units,daemons", description: "the service units and the daemons' command lines" },
    { command: "diff <(routerd render -c old.yaml) <(routerd render -c new.yaml)", description: "what an edit changes in the generated files" },
  ],
  seeAlso: ["routerd check", "routerd plan"],
  options: {
    ...CONFIG_OPTION,
    kind: { type: "string", short: "k", valueName: "KIND", description: `what to print: ${OUTPUT_KIND_NAMES.join(", ")} (comma-separated; default all)`, complete: OUTPUT_KIND_NAMES },
    json: { type: "boolean", description: "print [{kind, name, target, content}] as JSON" },
    ...COMMON_OPTIONS,
  },
  async run(v, io) {
    try {
      const rendered = renderFromOptions(v, io);
      if (!rendered) return 1;
      const { outputs } = rendered;
      if (v.json) io.out(JSON.stringify(outputs.map(({ checkInput: _c, file: _f, ...o }) => o), null, 2));
      else io.out(outputs.length ? outputsToText(outputs).trimEnd() : `Nothing to render${v.kind ? ` of kind ${String(v.kind)}` : ""}.`);
      return 0;
    } catch (err) {
      return reportError(err, io, Boolean(v.json));
    }
  },
};
