import { describe, expect, it } from "vitest";
import { findBlock, removeBlock, upsertBlock } from "./file-blocks.js";

describe("routerd-owned file blocks", () => {
  const foreign = "# operator\nnet.core.somaxconn = 1024\n";

  it("appends a new block after foreign content and finds it again", () => {
    const text = upsertBlock(foreign, "k1", "a = 1");
    expect(text).toBe(`${foreign}# BEGIN routerd k1\na = 1\n# END routerd k1\n`);
    expect(findBlock(text, "k1")).toBe("a = 1\n");
    expect(findBlock(text, "k2")).toBeUndefined();
  });

  it("replaces only its own block in place", () => {
    const two = upsertBlock(upsertBlock(foreign, "k1", "a = 1\n"), "k2", "b = 2\n");
    const changed = upsertBlock(two, "k1", "a = 3\n");
    expect(changed).toBe(`${foreign}# BEGIN routerd k1\na = 3\n# END routerd k1\n# BEGIN routerd k2\nb = 2\n# END routerd k2\n`);
  });

  it("removes its block and gives back the foreign text byte for byte", () => {
    const text = upsertBlock(upsertBlock(foreign, "k1", "a = 1\n"), "k2", "b = 2\n");
    expect(removeBlock(removeBlock(text, "k1"), "k2")).toBe(foreign);
    expect(removeBlock(foreign, "k1")).toBe(foreign);
  });

  it("handles files without a trailing newline and an unterminated marker", () => {
    expect(upsertBlock("x = 1", "k", "y = 2\n")).toBe("x = 1\n# BEGIN routerd k\ny = 2\n# END routerd k\n");
    const broken = "# BEGIN routerd k\nhalf\n";
    expect(findBlock(broken, "k")).toBeUndefined();
    expect(removeBlock(broken, "k")).toBe(broken);
  });
});
