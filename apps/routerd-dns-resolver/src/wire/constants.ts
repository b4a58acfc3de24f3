// DNS numbers: record types, classes, response codes, header flags, EDNS options. One table per family, so
// names for logs and `routerctl dns lookup` come from the same place as the numbers the code uses.

export const TYPE = {
  A: 1,
  NS: 2,
  MD: 3,
  MF: 4,
  CNAME: 5,
  SOA: 6,
  MB: 7,
  MG: 8,
  MR: 9,
  NULL: 10,
  WKS: 11,
  PTR: 12,
  HINFO: 13,
  MINFO: 14,
  MX: 15,
  TXT: 16,
  RP: 17,
  AFSDB: 18,
  RT: 21,
  SIG: 24,
  KEY: 25,
  PX: 26,
  AAAA: 28,
  LOC: 29,
  NXT: 30,
  SRV: 33,
  NAPTR: 35,
  KX: 36,
  CERT: 37,
  A6: 38,
  DNAME: 39,
  OPT: 41,
  DS: 43,
  SSHFP: 44,
  RRSIG: 46,
  NSEC: 47,
  DNSKEY: 48,
  NSEC3: 50,
  NSEC3PARAM: 51,
  TLSA: 52,
  CDS: 59,
  CDNSKEY: 60,
  SVCB: 64,
  HTTPS: 65,
  IXFR: 251,
  AXFR: 252,
  MAILB: 253,
  MAILA: 254,
  ANY: 255,
  CAA: 257,
} as const;

export type TypeName = keyof typeof TYPE;

const TYPE_NAMES = new Map<number, string>(Object.entries(TYPE).map(([k, v]) => [v, k]));

/** "A", "AAAA", ... or RFC 3597's "TYPE1234". */
export function typeName(type: number): string {
  return TYPE_NAMES.get(type) ?? `TYPE${type}`;
}

/** The number for "A", "aaaa" or "TYPE1234"; undefined when unknown. */
export function typeFromName(name: string): number | undefined {
  const upper = name.toUpperCase();
  const known = (TYPE as Record<string, number>)[upper];
  if (known !== undefined) return known;
  const m = /^TYPE(\d{1,5})$/.exec(upper);
  const n = m ? Number(m[1]) : NaN;
  return Number.isInteger(n) && n >= 0 && n <= 0xffff ? n : undefined;
}

export const CLASS = { IN: 1, CH: 3, HS: 4, NONE: 254, ANY: 255 } as const;

export const RCODE = {
  NOERROR: 0,
  FORMERR: 1,
  SERVFAIL: 2,
  NXDOMAIN: 3,
  NOTIMP: 4,
  REFUSED: 5,
  /** Extended (EDNS) rcode 16. */
  BADVERS: 16,
} as const;

const RCODE_NAMES = new Map<number, string>(Object.entries(RCODE).map(([k, v]) => [v, k]));

export function rcodeName(rcode: number): string {
  return RCODE_NAMES.get(rcode) ?? `RCODE${rcode}`;
}

/** Bits of the 16-bit header flags word (the rcode occupies its low 4 bits). */
export const FLAG = {
  QR: 0x8000,
  AA: 0x0400,
  TC: 0x0200,
  RD: 0x0100,
  RA: 0x0080,
  AD: 0x0020,
  CD: 0x0010,
} as const;

export const OPCODE_MASK = 0x7800;
export const RCODE_MASK = 0x000f;

/** EDNS header flags (the low 16 bits of an OPT record's TTL). */
export const EDNS_DO = 0x8000;

/** EDNS option codes we read or write. */
export const EDNS_OPTION = {
  COOKIE: 10,
  PADDING: 12,
  EDE: 15,
} as const;

/** RFC 8914 extended DNS error codes we send. */
export const EDE = {
  OTHER: 0,
  DNSSEC_BOGUS: 6,
  SIGNATURE_EXPIRED: 7,
  SIGNATURE_NOT_YET_VALID: 8,
  DNSKEY_MISSING: 9,
  RRSIGS_MISSING: 10,
  NSEC_MISSING: 12,
  STALE_ANSWER: 3,
  PROHIBITED: 18,
  STALE_NXDOMAIN: 19,
  NOT_READY: 14,
  NO_REACHABLE_AUTHORITY: 22,
  NETWORK_ERROR: 23,
} as const;

/** The UDP payload size we advertise and accept (DNS flag day 2020). */
export const EDNS_UDP_SIZE = 1232;
/** Without EDNS a UDP answer is at most this long (RFC 1035). */
export const CLASSIC_UDP_SIZE = 512;
export const MAX_NAME_LENGTH = 255;
export const MAX_LABEL_LENGTH = 63;
