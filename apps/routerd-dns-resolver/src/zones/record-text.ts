// Record data from and to presentation text, for the types a local zone holds and `lookup` prints. One
// entry per type; other types print as RFC 3597 `\# len hex`.
import { isIP } from "node:net";
import { TYPE } from "../wire/constants.js";
import { nameFromText, nameToText, readName } from "../wire/name.js";

interface TextCodec {
  parse(text: string): Buffer;
  print(data: Buffer): string;
}

export function ipv4Bytes(text: string): Buffer {
  if (isIP(text) !== 4) throw new Error(`${JSON.stringify(text)} is not an IPv4 address`);
  return Buffer.from(text.split(".").map(Number));
}

export function ipv6Bytes(text: string): Buffer {
  if (isIP(text) !== 6) throw new Error(`${JSON.stringify(text)} is not an IPv6 address`);
  let s = text;
  let v4: Buffer | undefined;
  if (s.includes(".")) {
    const at = s.lastIndexOf(":");
    v4 = ipv4Bytes(s.slice(at + 1));
    s = `${s.slice(0, at + 1)}0:0`;
  }
  const [head = "", tail] = s.split("::") as [string, string?];
  const hw = head === "" ? [] : head.split(":");
  const tw = tail === undefined || tail === "" ? [] : tail.split(":");
  const words = tail === undefined ? hw : [...hw, ...new Array<string>(8 - hw.length - tw.length).fill("0"), ...tw];
  const out = Buffer.alloc(16);
  words.forEach((w, i) => out.writeUInt16BE(parseInt(w, 16), i * 2));
  if (v4 !== undefined) v4.copy(out, 12);
  return out;
}

export function ipv6Text(data: Uint8Array): string {
  const words = Array.from({ length: 8 }, (_, i) => ((data[i * 2]! << 8) | data[i * 2 + 1]!).toString(16));
  // Longest run of zeros (2 or more) becomes "::" (RFC 5952).
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (words[i] !== "0") {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && words[j] === "0") j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (best < 0) return words.join(":");
  return `${words.slice(0, best).join(":")}::${words.slice(best + bestLen).join(":")}`;
}

function charStrings(text: string): Buffer {
  const parts: Buffer[] = [];
  const strings = text.match(/"((?:[^"\\]|\\.)*)"|\S+/g) ?? [];
  for (const s of strings) {
    const raw = Buffer.from(s.startsWith('"') ? s.slice(1, -1).replace(/\\(.)/g, "$1") : s, "utf8");
    for (let i = 0; i < raw.length || i === 0; i += 255) {
      const chunk = raw.subarray(i, i + 255);
      parts.push(Buffer.from([chunk.length]), chunk);
      if (raw.length === 0) break;
    }
  }
  return Buffer.concat(parts);
}

function printCharStrings(data: Buffer): string {
  const out: string[] = [];
  for (let pos = 0; pos < data.length; ) {
    const len = data[pos]!;
    out.push(`"${data.subarray(pos + 1, pos + 1 + len).toString("latin1").replace(/["\\]/g, "\\$&")}"`);
    pos += 1 + len;
  }
  return out.join(" ");
}

const nameCodec: TextCodec = {
  parse: (t) => nameFromText(t),
  print: (d) => nameToText(readName(d, 0)[0]),
};

const CODECS = new Map<number, TextCodec>([
  [TYPE.A, { parse: ipv4Bytes, print: (d) => Array.from(d).join(".") }],
  [TYPE.AAAA, { parse: ipv6Bytes, print: ipv6Text }],
  [TYPE.CNAME, nameCodec],
  [TYPE.PTR, nameCodec],
  [TYPE.NS, nameCodec],
  [TYPE.DNAME, nameCodec],
  [TYPE.TXT, { parse: charStrings, print: printCharStrings }],
  [
    TYPE.MX,
    {
      parse(t) {
        const [pref, host] = t.trim().split(/\s+/);
        const p = Number(pref);
        if (!Number.isInteger(p) || p < 0 || p > 0xffff || host === undefined) throw new Error(`MX wants "PREFERENCE HOST", got ${JSON.stringify(t)}`);
        return Buffer.concat([Buffer.from([p >> 8, p & 0xff]), nameFromText(host)]);
      },
      print: (d) => `${d.readUInt16BE(0)} ${nameToText(readName(d, 2)[0])}`,
    },
  ],
  [
    TYPE.SOA,
    {
      parse() {
        throw new Error("SOA records are synthesized, not configured");
      },
      print(d) {
        const [mname, p1] = readName(d, 0);
        const [rname, p2] = readName(d, p1);
        const nums = [0, 4, 8, 12, 16].map((o) => d.readUInt32BE(p2 + o));
        return `${nameToText(mname)} ${nameToText(rname)} ${nums.join(" ")}`;
      },
    },
  ],
]);

/** The types a local zone may hold as configured records. */
export const ZONE_RECORD_TYPES = ["A", "AAAA", "CNAME", "PTR", "TXT", "MX", "NS"] as const;

export function parseRecordData(type: number, text: string): Buffer {
  const codec = CODECS.get(type);
  if (codec === undefined) throw new Error(`records of type ${type} cannot be written as text here`);
  return codec.parse(text);
}

export function printRecordData(type: number, data: Buffer): string {
  const codec = CODECS.get(type);
  if (codec !== undefined) {
    try {
      return codec.print(data);
    } catch {
      // fall through to the generic form
    }
  }
  return `\\# ${data.length} ${data.toString("hex")}`;
}
