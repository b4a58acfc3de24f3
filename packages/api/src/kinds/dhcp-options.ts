// DHCPv4 options as the original API writes them ({code | name, value}), shared by DHCPv4Server and
// DHCPv4Reservation, rendered into dnsmasq `dhcp-option` lines.
import { t } from "../schema.js";

const OPTION_NAME = /^[a-z][a-z0-9-]*$/;

export const dhcpOptionSpec = t.checked(
  t.object({
    code: t.optional(t.int({ min: 1, max: 254 }).describe("option number")),
    name: t.optional(t.string({ pattern: OPTION_NAME, patternHint: "a dnsmasq option name like ntp-server" }).describe("option name as dnsmasq knows it (dnsmasq --help dhcp)")),
    value: t.string({ minLength: 1, pattern: /^[^\n,]+(,[^\n,]+)*$/, patternHint: "dnsmasq option values, comma separated" }),
  }),
  (o) => (o.code === undefined && o.name === undefined ? { message: "needs a code or a name", hint: "e.g. {code: 42, value: 192.0.2.123} or {name: ntp-server, value: 192.0.2.123}" } : undefined),
);

export type DhcpOption = { code?: number; name?: string; value: string };

/** The option as dnsmasq's dhcp-option takes it after the tag: `42,value` or `option:ntp-server,value`. */
export function dnsmasqOption(o: DhcpOption): string {
  return `${o.code !== undefined ? String(o.code) : `option:${o.name!}`},${o.value}`;
}
