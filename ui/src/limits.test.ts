import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DEFAULT_DEPTH, NESTED_CAP, PAGE, SAVED_EXPANDED_MAX } from "./limits";

describe("limits", () => {
  it("mirror the engine's constants", () => {
    const rs = readFileSync(new URL("../../src-tauri/core/src/limits.rs", import.meta.url), "utf8");
    const value = (name: string) => Number(new RegExp(`pub const ${name}: (?:u32|usize) = ([0-9_]+);`).exec(rs)![1]!.replace(/_/g, ""));
    expect(DEFAULT_DEPTH).toBe(value("DEFAULT_DEPTH"));
    expect(NESTED_CAP).toBe(value("NESTED_CAP"));
    expect(PAGE).toBe(value("PAGE"));
    expect(SAVED_EXPANDED_MAX).toBe(value("SAVED_EXPANDED_MAX"));
  });
});
