// A protobuf decoder for the OTLP export requests (logs, traces, metrics), written from the field numbers
// of opentelemetry-proto (opentelemetry/proto/{collector,logs,trace,metrics,common,resource}/v1/*.proto), so
// the test checks what went over the wire without using the SDK's own code. Unknown fields are skipped, as
// any protobuf reader does; a field with the wrong wire type is an error.

// field number → [name, type, repeated?]; a capitalised type is a message in SCHEMA.
const SCHEMA = {
  ExportLogsServiceRequest: { 1: ["resourceLogs", "ResourceLogs", true] },
  ResourceLogs: { 1: ["resource", "Resource"], 2: ["scopeLogs", "ScopeLogs", true], 3: ["schemaUrl", "string"] },
  ScopeLogs: { 1: ["scope", "InstrumentationScope"], 2: ["logRecords", "LogRecord", true], 3: ["schemaUrl", "string"] },
  LogRecord: {
    1: ["timeUnixNano", "fixed64"],
    2: ["severityNumber", "uint"],
    3: ["severityText", "string"],
    5: ["body", "AnyValue"],
    6: ["attributes", "KeyValue", true],
    7: ["droppedAttributesCount", "uint"],
    8: ["flags", "fixed32"],
    9: ["traceId", "bytes"],
    10: ["spanId", "bytes"],
    11: ["observedTimeUnixNano", "fixed64"],
    12: ["eventName", "string"],
  },
  ExportTraceServiceRequest: { 1: ["resourceSpans", "ResourceSpans", true] },
  ResourceSpans: { 1: ["resource", "Resource"], 2: ["scopeSpans", "ScopeSpans", true], 3: ["schemaUrl", "string"] },
  ScopeSpans: { 1: ["scope", "InstrumentationScope"], 2: ["spans", "Span", true], 3: ["schemaUrl", "string"] },
  Span: {
    1: ["traceId", "bytes"],
    2: ["spanId", "bytes"],
    3: ["traceState", "string"],
    4: ["parentSpanId", "bytes"],
    5: ["name", "string"],
    6: ["kind", "uint"],
    7: ["startTimeUnixNano", "fixed64"],
    8: ["endTimeUnixNano", "fixed64"],
    9: ["attributes", "KeyValue", true],
    15: ["status", "Status"],
    16: ["flags", "fixed32"],
  },
  Status: { 2: ["message", "string"], 3: ["code", "uint"] },
  ExportMetricsServiceRequest: { 1: ["resourceMetrics", "ResourceMetrics", true] },
  ResourceMetrics: { 1: ["resource", "Resource"], 2: ["scopeMetrics", "ScopeMetrics", true], 3: ["schemaUrl", "string"] },
  ScopeMetrics: { 1: ["scope", "InstrumentationScope"], 2: ["metrics", "Metric", true], 3: ["schemaUrl", "string"] },
  Metric: { 1: ["name", "string"], 2: ["description", "string"], 3: ["unit", "string"], 5: ["gauge", "Gauge"], 7: ["sum", "Sum"], 9: ["histogram", "Opaque"] },
  Gauge: { 1: ["dataPoints", "NumberDataPoint", true] },
  Sum: { 1: ["dataPoints", "NumberDataPoint", true], 2: ["aggregationTemporality", "uint"], 3: ["isMonotonic", "bool"] },
  NumberDataPoint: { 2: ["startTimeUnixNano", "fixed64"], 3: ["timeUnixNano", "fixed64"], 4: ["asDouble", "double"], 6: ["asInt", "sfixed64"], 7: ["attributes", "KeyValue", true], 8: ["flags", "uint"] },
  Resource: { 1: ["attributes", "KeyValue", true], 2: ["droppedAttributesCount", "uint"] },
  InstrumentationScope: { 1: ["name", "string"], 2: ["version", "string"], 3: ["attributes", "KeyValue", true] },
  KeyValue: { 1: ["key", "string"], 2: ["value", "AnyValue"] },
  AnyValue: { 1: ["stringValue", "string"], 2: ["boolValue", "bool"], 3: ["intValue", "int64"], 4: ["doubleValue", "double"], 5: ["arrayValue", "ArrayValue"], 6: ["kvlistValue", "KeyValueList"], 7: ["bytesValue", "bytes"] },
  ArrayValue: { 1: ["values", "AnyValue", true] },
  KeyValueList: { 1: ["values", "KeyValue", true] },
  Opaque: {},
};

const WIRE = { uint: 0, bool: 0, int64: 0, fixed64: 1, sfixed64: 1, double: 1, fixed32: 5, string: 2, bytes: 2 };

function varint(buf, pos) {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    if (pos >= buf.length) throw new Error("truncated varint");
    const b = buf[pos++];
    result |= BigInt(b & 0x7f) << shift;
    if (!(b & 0x80)) return [result, pos];
    shift += 7n;
  }
}

function scalar(type, buf, pos, end) {
  switch (type) {
    case "uint":
    case "bool":
    case "int64": {
      const [v, next] = varint(buf, pos);
      const n = type === "int64" ? BigInt.asIntN(64, v) : v;
      return [type === "bool" ? n !== 0n : Number(n), next];
    }
    case "fixed64":
      return [buf.readBigUInt64LE(pos).toString(), pos + 8];
    case "sfixed64":
      return [Number(buf.readBigInt64LE(pos)), pos + 8];
    case "double":
      return [buf.readDoubleLE(pos), pos + 8];
    case "fixed32":
      return [buf.readUInt32LE(pos), pos + 4];
    case "string":
      return [buf.toString("utf8", pos, end), end];
    case "bytes":
      return [buf.toString("hex", pos, end), end];
  }
  throw new Error(`unknown type ${type}`);
}

function skip(wire, buf, pos) {
  if (wire === 0) return varint(buf, pos)[1];
  if (wire === 1) return pos + 8;
  if (wire === 5) return pos + 4;
  if (wire === 2) {
    const [len, next] = varint(buf, pos);
    return next + Number(len);
  }
  throw new Error(`unsupported wire type ${wire}`);
}

export function decode(typeName, buf, pos = 0, end = buf.length) {
  const fields = SCHEMA[typeName];
  if (!fields) throw new Error(`no schema for ${typeName}`);
  const out = {};
  while (pos < end) {
    const [tag, afterTag] = varint(buf, pos);
    const number = Number(tag >> 3n);
    const wire = Number(tag & 7n);
    const field = fields[number];
    if (!field) {
      pos = skip(wire, buf, afterTag);
      continue;
    }
    const [name, type, repeated] = field;
    const message = /^[A-Z]/.test(type);
    const expected = message ? 2 : WIRE[type];
    if (wire !== expected) throw new Error(`${typeName}.${name} (field ${number}): wire type ${wire}, expected ${expected}`);
    let value;
    if (wire === 2) {
      const [len, start] = varint(buf, afterTag);
      const stop = start + Number(len);
      if (stop > end) throw new Error(`${typeName}.${name}: length ${len} past the end`);
      value = message ? decode(type, buf, start, stop) : scalar(type, buf, start, stop)[0];
      pos = stop;
    } else {
      [value, pos] = scalar(type, buf, afterTag, end);
    }
    if (repeated) (out[name] ??= []).push(value);
    else out[name] = value;
  }
  return out;
}

/** An AnyValue as a plain JS value. */
export function plain(v) {
  if (!v) return undefined;
  if ("stringValue" in v) return v.stringValue;
  if ("boolValue" in v) return v.boolValue;
  if ("intValue" in v) return v.intValue;
  if ("doubleValue" in v) return v.doubleValue;
  if ("arrayValue" in v) return (v.arrayValue.values ?? []).map(plain);
  if ("kvlistValue" in v) return attributes(v.kvlistValue.values);
  if ("bytesValue" in v) return v.bytesValue;
  return undefined;
}

/** A KeyValue list as an object. */
export function attributes(list = []) {
  return Object.fromEntries(list.map((kv) => [kv.key, plain(kv.value)]));
}

export const REQUEST_TYPES = {
  "/v1/logs": "ExportLogsServiceRequest",
  "/v1/traces": "ExportTraceServiceRequest",
  "/v1/metrics": "ExportMetricsServiceRequest",
};
