// DHCPv6 options: typed forms and one table of per-option decoders/encoders (RFC 8415 §21 and friends).
import { OptionCode } from "./constants.js";
import {
  ByteReader,
  ByteWriter,
  DecodeError,
  decodeDomainNames,
  encodeDomainName,
  formatIpv6,
  parseIpv6,
} from "./wire.js";

export type Dhcp6Option =
  | { kind: "client-id"; duid: Uint8Array }
  | { kind: "server-id"; duid: Uint8Array }
  | { kind: "ia-na"; iaid: number; t1: number; t2: number; options: Dhcp6Option[] }
  | { kind: "ia-pd"; iaid: number; t1: number; t2: number; options: Dhcp6Option[] }
  | { kind: "ia-addr"; address: string; preferred: number; valid: number; options: Dhcp6Option[] }
  | { kind: "ia-prefix"; preferred: number; valid: number; prefixLength: number; prefix: string; options: Dhcp6Option[] }
  | { kind: "oro"; codes: number[] }
  | { kind: "preference"; value: number }
  | { kind: "elapsed-time"; centiseconds: number }
  | { kind: "status-code"; status: number; message: string }
  | { kind: "rapid-commit" }
  | { kind: "dns-servers"; addresses: string[] }
  | { kind: "domain-list"; names: string[] }
  | { kind: "sntp-servers"; addresses: string[] }
  | { kind: "information-refresh-time"; seconds: number }
  | { kind: "aftr-name"; name: string }
  | { kind: "sol-max-rt"; seconds: number }
  | { kind: "inf-max-rt"; seconds: number }
  | { kind: "unknown"; code: number; data: Uint8Array }
  // A known, non-structural option whose content did not parse; kept so the rest of the message is usable.
  | { kind: "malformed"; code: number; data: Uint8Array; reason: string };

export type OptionKind = Dhcp6Option["kind"];
type KnownKind = Exclude<OptionKind, "unknown" | "malformed">;
export type OptionOf<K extends OptionKind> = Extract<Dhcp6Option, { kind: K }>;

interface OptionSpec<K extends KnownKind> {
  code: number;
  /** Structural options make the whole message invalid when they do not parse. */
  critical: boolean;
  decode(r: ByteReader, depth: number): OptionOf<K>;
  encode(o: OptionOf<K>, w: ByteWriter): void;
}

const MAX_DEPTH = 4;

function address(r: ByteReader): string {
  return formatIpv6(r.bytes(16, "IPv6 address"));
}

function writeAddress(w: ByteWriter, text: string): void {
  const b = parseIpv6(text);
  if (!b) throw new RangeError(`not an IPv6 address: ${text}`);
  w.bytes(b);
}

function addressList(r: ByteReader): string[] {
  if (r.remaining % 16 !== 0) throw new DecodeError("address list length is not a multiple of 16");
  const out: string[] = [];
  while (r.remaining > 0) out.push(address(r));
  return out;
}

function exactly(r: ByteReader, n: number, what: string): void {
  if (r.remaining !== n) throw new DecodeError(`${what} must be ${n} bytes, got ${r.remaining}`);
}

const duidSpec = <K extends "client-id" | "server-id">(kind: K, code: number): OptionSpec<K> => ({
  code,
  critical: true,
  decode(r) {
    if (r.remaining < 2 || r.remaining > 130) throw new DecodeError(`${kind} DUID length ${r.remaining} out of range`);
    return { kind, duid: r.rest() } as OptionOf<K>;
  },
  encode: (o: { duid: Uint8Array }, w: ByteWriter) => void w.bytes(o.duid),
});

const u32Spec = <K extends "information-refresh-time" | "sol-max-rt" | "inf-max-rt">(kind: K, code: number): OptionSpec<K> => ({
  code,
  critical: false,
  decode(r) {
    exactly(r, 4, kind);
    return { kind, seconds: r.u32() } as OptionOf<K>;
  },
  encode: (o: { seconds: number }, w: ByteWriter) => void w.u32(o.seconds),
});

const addressListSpec = <K extends "dns-servers" | "sntp-servers">(kind: K, code: number): OptionSpec<K> => ({
  code,
  critical: false,
  decode: (r) => ({ kind, addresses: addressList(r) }) as OptionOf<K>,
  encode: (o: { addresses: string[] }, w: ByteWriter) => o.addresses.forEach((a) => writeAddress(w, a)),
});

const iaSpec = <K extends "ia-na" | "ia-pd">(kind: K, code: number): OptionSpec<K> => ({
  code,
  critical: true,
  decode(r, depth) {
    const iaid = r.u32(`${kind} IAID`);
    const t1 = r.u32(`${kind} T1`);
    const t2 = r.u32(`${kind} T2`);
    return { kind, iaid, t1, t2, options: decodeOptionList(r.rest(), depth + 1) } as OptionOf<K>;
  },
  encode(o: { iaid: number; t1: number; t2: number; options: Dhcp6Option[] }, w: ByteWriter) {
    w.u32(o.iaid).u32(o.t1).u32(o.t2).bytes(encodeOptionList(o.options));
  },
});

export const OPTION_SPECS: { [K in KnownKind]: OptionSpec<K> } = {
  "client-id": duidSpec("client-id", OptionCode.CLIENTID),
  "server-id": duidSpec("server-id", OptionCode.SERVERID),
  "ia-na": iaSpec("ia-na", OptionCode.IA_NA),
  "ia-pd": iaSpec("ia-pd", OptionCode.IA_PD),
  "ia-addr": {
    code: OptionCode.IAADDR,
    critical: true,
    decode(r, depth) {
      const addr = address(r);
      const preferred = r.u32("IAADDR preferred");
      const valid = r.u32("IAADDR valid");
      return { kind: "ia-addr", address: addr, preferred, valid, options: decodeOptionList(r.rest(), depth + 1) };
    },
    encode(o, w) {
      writeAddress(w, o.address);
      w.u32(o.preferred).u32(o.valid).bytes(encodeOptionList(o.options));
    },
  },
  "ia-prefix": {
    code: OptionCode.IAPREFIX,
    critical: true,
    decode(r, depth) {
      const preferred = r.u32("IAPREFIX preferred");
      const valid = r.u32("IAPREFIX valid");
      const prefixLength = r.u8("IAPREFIX length");
      if (prefixLength > 128) throw new DecodeError(`prefix length ${prefixLength} > 128`);
      const prefix = address(r);
      return { kind: "ia-prefix", preferred, valid, prefixLength, prefix, options: decodeOptionList(r.rest(), depth + 1) };
    },
    encode(o, w) {
      w.u32(o.preferred).u32(o.valid).u8(o.prefixLength);
      writeAddress(w, o.prefix);
      w.bytes(encodeOptionList(o.options));
    },
  },
  oro: {
    code: OptionCode.ORO,
    critical: false,
    decode(r) {
      if (r.remaining % 2 !== 0) throw new DecodeError("ORO length is odd");
      const codes: number[] = [];
      while (r.remaining > 0) codes.push(r.u16());
      return { kind: "oro", codes };
    },
    encode: (o, w) => o.codes.forEach((c) => w.u16(c)),
  },
  preference: {
    code: OptionCode.PREFERENCE,
    critical: false,
    decode(r) {
      exactly(r, 1, "preference");
      return { kind: "preference", value: r.u8() };
    },
    encode: (o, w) => void w.u8(o.value),
  },
  "elapsed-time": {
    code: OptionCode.ELAPSED_TIME,
    critical: false,
    decode(r) {
      exactly(r, 2, "elapsed time");
      return { kind: "elapsed-time", centiseconds: r.u16() };
    },
    encode: (o, w) => void w.u16(o.centiseconds),
  },
  "status-code": {
    code: OptionCode.STATUS_CODE,
    critical: true,
    decode(r) {
      const status = r.u16("status code");
      return { kind: "status-code", status, message: Buffer.from(r.rest()).toString("utf8") };
    },
    encode: (o, w) => void w.u16(o.status).bytes(Buffer.from(o.message, "utf8")),
  },
  "rapid-commit": {
    code: OptionCode.RAPID_COMMIT,
    critical: false,
    decode(r) {
      exactly(r, 0, "rapid commit");
      return { kind: "rapid-commit" };
    },
    encode: () => undefined,
  },
  "dns-servers": addressListSpec("dns-servers", OptionCode.DNS_SERVERS),
  "sntp-servers": addressListSpec("sntp-servers", OptionCode.SNTP_SERVERS),
  "domain-list": {
    code: OptionCode.DOMAIN_LIST,
    critical: false,
    decode: (r) => ({ kind: "domain-list", names: decodeDomainNames(r.rest()) }),
    encode: (o, w) => o.names.forEach((n) => encodeDomainName(n, w)),
  },
  "aftr-name": {
    code: OptionCode.AFTR_NAME,
    critical: false,
    decode(r) {
      const names = decodeDomainNames(r.rest());
      if (names.length !== 1) throw new DecodeError(`AFTR-Name must hold one name, got ${names.length}`);
      return { kind: "aftr-name", name: names[0]! };
    },
    encode: (o, w) => encodeDomainName(o.name, w),
  },
  "information-refresh-time": u32Spec("information-refresh-time", OptionCode.INFORMATION_REFRESH_TIME),
  "sol-max-rt": u32Spec("sol-max-rt", OptionCode.SOL_MAX_RT),
  "inf-max-rt": u32Spec("inf-max-rt", OptionCode.INF_MAX_RT),
};

const KIND_BY_CODE = new Map<number, KnownKind>(
  (Object.keys(OPTION_SPECS) as KnownKind[]).map((kind) => [OPTION_SPECS[kind].code, kind]),
);

export function optionCode(o: Dhcp6Option): number {
  return o.kind === "unknown" || o.kind === "malformed" ? o.code : OPTION_SPECS[o.kind].code;
}

/** Decodes a run of TLV options. Framing errors and bad structural options throw DecodeError. */
export function decodeOptionList(buf: Uint8Array, depth = 0): Dhcp6Option[] {
  if (depth > MAX_DEPTH) throw new DecodeError("options nested too deeply");
  const r = new ByteReader(buf);
  const out: Dhcp6Option[] = [];
  while (r.remaining > 0) {
    const code = r.u16("option code");
    const len = r.u16("option length");
    if (len > r.remaining) throw new DecodeError(`option ${code} length ${len} overruns its container (${r.remaining} left)`);
    const data = r.bytes(len);
    const kind = KIND_BY_CODE.get(code);
    if (!kind) {
      out.push({ kind: "unknown", code, data });
      continue;
    }
    const spec = OPTION_SPECS[kind] as OptionSpec<KnownKind>;
    try {
      const body = new ByteReader(data);
      const opt = spec.decode(body, depth);
      if (body.remaining !== 0) throw new DecodeError(`option ${kind} has ${body.remaining} trailing bytes`);
      out.push(opt);
    } catch (err) {
      if (!(err instanceof DecodeError) || spec.critical) throw err;
      out.push({ kind: "malformed", code, data, reason: err.message });
    }
  }
  return out;
}

export function encodeOption(o: Dhcp6Option): Uint8Array {
  const body = new ByteWriter();
  if (o.kind === "unknown" || o.kind === "malformed") body.bytes(o.data);
  else (OPTION_SPECS[o.kind] as OptionSpec<KnownKind>).encode(o, body);
  const data = body.finish();
  if (data.length > 0xffff) throw new RangeError(`option ${optionCode(o)} too long (${data.length} bytes)`);
  return new ByteWriter().u16(optionCode(o)).u16(data.length).bytes(data).finish();
}

export function encodeOptionList(options: Dhcp6Option[]): Uint8Array {
  const w = new ByteWriter();
  for (const o of options) w.bytes(encodeOption(o));
  return w.finish();
}

export function findOption<K extends OptionKind>(options: Dhcp6Option[], kind: K): OptionOf<K> | undefined {
  return options.find((o): o is OptionOf<K> => o.kind === kind);
}

export function findOptions<K extends OptionKind>(options: Dhcp6Option[], kind: K): OptionOf<K>[] {
  return options.filter((o): o is OptionOf<K> => o.kind === kind);
}
