import { describe, expect, test } from "vitest";
import { copiedSentence } from "./file-actions";

describe("copy path sentences", () => {
  test("a quoted path says it was quoted, and how", () => {
    expect(copiedSentence({ quoted: true })).toMatch(/quoted as \$'…'/);
  });
  test("a plain path says nothing of quoting", () => {
    expect(copiedSentence({ quoted: false })).toBe("Copied the path.");
  });
});
