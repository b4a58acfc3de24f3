// Builds the client's outgoing messages (RFC 8415 §18.2, Appendix B option tables). Pure.
import type { Dhcp6Message } from "./codec.js";
import { OptionCode } from "./constants.js";
import type { Exchange, FsmConfig, PrefixHint } from "./fsm-types.js";
import type { Dhcp6Option } from "./options.js";
import { elapsedCentiseconds } from "./retransmit.js";

/** Options every stateful exchange asks for; SOL_MAX_RT must be in the ORO (RFC 8415 §21.24). */
export const STATEFUL_ORO = [
  OptionCode.DNS_SERVERS,
  OptionCode.DOMAIN_LIST,
  OptionCode.SNTP_SERVERS,
  OptionCode.AFTR_NAME,
  OptionCode.SOL_MAX_RT,
];
/** Information-request also asks for the refresh time and INF_MAX_RT (§18.2.6, §21.25). */
export const INFORMATION_ORO = [...STATEFUL_ORO.filter((c) => c !== OptionCode.SOL_MAX_RT), OptionCode.INFORMATION_REFRESH_TIME, OptionCode.INF_MAX_RT];

const WITH_SERVER_ID = new Set(["request", "renew", "release"]);
const WITH_ORO = new Set(["solicit", "request", "renew", "rebind", "information-request"]);

export function buildMessage(ex: Exchange, cfg: FsmConfig, now: number): Dhcp6Message {
  const options: Dhcp6Option[] = [{ kind: "client-id", duid: cfg.clientDuid }];
  if (WITH_SERVER_ID.has(ex.kind) && ex.serverId) options.push({ kind: "server-id", duid: ex.serverId });
  options.push({ kind: "elapsed-time", centiseconds: ex.startedAt === undefined ? 0 : elapsedCentiseconds(ex.startedAt, now) });
  if (WITH_ORO.has(ex.kind)) {
    const base = ex.kind === "information-request" ? INFORMATION_ORO : STATEFUL_ORO;
    options.push({ kind: "oro", codes: [...new Set([...base, ...cfg.requestedOptions])] });
  }
  if (ex.kind === "solicit" && cfg.rapidCommit) options.push({ kind: "rapid-commit" });
  options.push(...ex.ias);
  return { type: ex.params.messageType, xid: ex.xid, options };
}

/** IA options for a Solicit: IA_PD with a prefix hint (specific prefix or just a length) and/or IA_NA. */
export function solicitIas(cfg: FsmConfig, hint: PrefixHint | undefined): Dhcp6Option[] {
  const out: Dhcp6Option[] = [];
  if (cfg.pd) {
    const iaOptions: Dhcp6Option[] = [];
    if (hint) iaOptions.push({ kind: "ia-prefix", preferred: 0, valid: 0, prefixLength: hint.length, prefix: hint.prefix, options: [] });
    else if (cfg.pd.prefixLength !== undefined) {
      iaOptions.push({ kind: "ia-prefix", preferred: 0, valid: 0, prefixLength: cfg.pd.prefixLength, prefix: "::", options: [] });
    }
    out.push({ kind: "ia-pd", iaid: cfg.pd.iaid, t1: 0, t2: 0, options: iaOptions });
  }
  if (cfg.na) out.push({ kind: "ia-na", iaid: cfg.na.iaid, t1: 0, t2: 0, options: [] });
  return out;
}

/**
 * Which prefix to ask for: an explicitly configured hint wins; otherwise the last delegated prefix
 * (so the LAN keeps its numbers), unless the operator changed the wanted length since.
 */
export function chooseHint(cfg: FsmConfig, lastPrefix: PrefixHint | undefined, rejected: boolean): PrefixHint | undefined {
  if (!cfg.pd || rejected) return undefined;
  if (cfg.pd.hint) return cfg.pd.hint;
  if (!lastPrefix) return undefined;
  if (cfg.pd.prefixLength !== undefined && cfg.pd.prefixLength !== lastPrefix.length) return undefined;
  return lastPrefix;
}
