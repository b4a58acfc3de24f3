import { systemRunner } from "@routerd/host";
import type { Command } from "@routerd/cli";
import { checksToText, runChecks } from "../render/checks.js";
import { COMMON_OPTIONS, CONFIG_OPTION, reportError } from "./common.js";
import { renderFromOptions } from "./render.js";

export const checkCommand: Command = {
  name: "check",
  summary: "validate the config and let nft, dnsmasq and the kernel check what it renders; applies nothing",
  usage: "check --config FILE [--kind KIND[,KIND...]] [--json]",
  description:
    "Validates the config (as `routerd validate`), renders it (as `routerd render`) and hands each output to\n" +
    "the tool that will consume it, in check mode: every nftables table to `nft -c` (the kernel parses the\n" +
    "transaction but does not commit it), the dnsmasq config to `dnsmasq --test`, each sysctl key to\n" +
    "/proc/sys. Nothing is changed. Run it as root on the router (nft -c needs CAP_NET_ADMIN).",
  exitCodes: { 0: "valid, and every check passed (warnings are printed)", 1: "the config is invalid, a check failed, or a tool is missing" },
  examples: [
    { command: "routerd check --config /etc/routerd/router.yaml.new", description: "check an edited config before `routerd apply --confirm-within`" },
    { command: "routerd check -c router.yaml --json | jq '.checks[] | select(.status != \"ok\")'", description: "only what did not pass" },
  ],
  seeAlso: ["routerd validate", "routerd render", "routerd apply", "routerctl doctor"],
  options: {
    ...CONFIG_OPTION,
    kind: { type: "string", short: "k", valueName: "KIND", description: "only check these output kinds (comma-separated)", complete: ["nft", "dnsmasq", "sysctl"] },
    json: { type: "boolean", description: "print {valid, checks[]} as JSON" },
    ...COMMON_OPTIONS,
  },
  async run(v, io) {
    try {
      const rendered = renderFromOptions(v, io);
      if (!rendered) {
        if (v.json) io.out(JSON.stringify({ valid: false, checks: [] }, null, 2));
        return 1;
      }
      const { config, outputs } = rendered;
      const checks = await runChecks(outputs, systemRunner);
      const failed = checks.filter((c) => c.status === "fail").length;
      if (v.json) io.out(JSON.stringify({ valid: true, ok: failed === 0, checks }, null, 2));
      else {
        io.out([`OK    validate  ${String(v.config)} (${config.resources.length} resources)`, checksToText(checks)].filter(Boolean).join("\n"));
        io.out(failed ? `${failed} check${failed === 1 ? "" : "s"} failed; nothing was applied.` : "All checks passed; nothing was applied.");
      }
      return failed ? 1 : 0;
    } catch (err) {
      return reportError(err, io, Boolean(v.json));
    }
  },
};
