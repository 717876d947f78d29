// Which highlight.js language colours a file, by its name. Kept apart from
// lowlight so the main bundle does not carry the grammars: they load in the
// colour worker only. Every language named here is one of lowlight's
// `common` set (a unit test checks it).

const BY_EXTENSION: Record<string, string> = {
  rs: "rust", ts: "typescript", tsx: "typescript", js: "javascript", mjs: "javascript", cjs: "javascript", jsx: "javascript",
  py: "python", rb: "ruby", go: "go", c: "c", h: "c", cc: "cpp", cpp: "cpp", hpp: "cpp", cs: "csharp", java: "java",
  kt: "kotlin", swift: "swift", sh: "bash", bash: "bash", zsh: "bash", json: "json", toml: "ini", ini: "ini", yaml: "yaml",
  yml: "yaml", xml: "xml", html: "xml", htm: "xml", svg: "xml", css: "css", scss: "scss", less: "less", sql: "sql",
  md: "markdown", markdown: "markdown", php: "php", pl: "perl", lua: "lua", r: "r", diff: "diff", patch: "diff",
  makefile: "makefile", mk: "makefile", graphql: "graphql", vb: "vbnet",
};

/** Every language the table can answer (for the test against lowlight). */
export const LANGUAGES: readonly string[] = Array.from(new Set(Object.values(BY_EXTENSION)));

/** The highlight.js language for a file name, if one is known. */
export function languageFor(name: string): string | null {
  const lower = name.toLowerCase();
  if (lower === "makefile") return BY_EXTENSION.makefile ?? null;
  const dot = lower.lastIndexOf(".");
  if (dot < 0) return null;
  return BY_EXTENSION[lower.slice(dot + 1)] ?? null;
}
