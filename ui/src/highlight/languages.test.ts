import { common } from "lowlight";
import { describe, expect, it } from "vitest";
import { LANGUAGES, languageFor } from "./languages";

describe("languages", () => {
  it("names only grammars the colour worker has", () => {
    for (const l of LANGUAGES) expect(Object.keys(common), l).toContain(l);
  });

  it("picks by extension, case-insensitively, and knows Makefile", () => {
    expect(languageFor("lib.rs")).toBe("rust");
    expect(languageFor("README.MD")).toBe("markdown");
    expect(languageFor("Makefile")).toBe("makefile");
    expect(languageFor("notes.txt")).toBeNull();
    expect(languageFor("noextension")).toBeNull();
  });
});
