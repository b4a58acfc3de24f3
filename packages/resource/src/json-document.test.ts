import { describe, expect, it } from "vitest";
import { jsonOneItemPerLine } from "./json-document.js";

describe("jsonOneItemPerLine", () => {
  it("is the same document as JSON.stringify, one list item per line", () => {
    const head = { apiVersion: "x/v1", generation: 3 };
    const list = [{ a: 1, b: ["x", "y"] }, { c: "line\nbreak" }];
    const text = jsonOneItemPerLine(head, "entries", list);
    expect(JSON.parse(text)).toEqual({ ...head, entries: list });
    expect(text.split("\n")).toEqual(['{"apiVersion":"x/v1","generation":3,"entries":[', '{"a":1,"b":["x","y"]},', '{"c":"line\\nbreak"}', "]}", ""]);
  });

  it("writes an empty list", () => {
    const text = jsonOneItemPerLine({ version: 1 }, "statuses", []);
    expect(text).toBe('{"version":1,"statuses":[]}\n');
    expect(JSON.parse(text)).toEqual({ version: 1, statuses: [] });
  });
});
