// Lint: typescript-eslint's recommended rules, plus a ban on every way HTML
// can be built from strings. Names and file contents reach the DOM as text only.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

const HTML_SINKS = [
  { selector: "MemberExpression[property.name=/^(innerHTML|outerHTML)$/]", message: "No innerHTML/outerHTML: build elements and set textContent." },
  { selector: "CallExpression[callee.property.name=/^(insertAdjacentHTML|createContextualFragment|parseFromString|setHTMLUnsafe)$/]", message: "No HTML parsing of strings." },
  { selector: "CallExpression[callee.object.name='document'][callee.property.name=/^(write|writeln)$/]", message: "No document.write." },
  { selector: "Literal[value=/<\\/?[a-zA-Z][^>]*>/]", message: "No HTML built from strings: use createElement." },
  { selector: "TemplateElement[value.raw=/<\\/?[a-zA-Z][^>]*>/]", message: "No HTML built from strings: use createElement." },
  { selector: "CallExpression[callee.name=/^(eval|Function)$/]", message: "No eval." },
  { selector: "NewExpression[callee.name='Function']", message: "No eval." },
];

export default tseslint.config(
  { ignores: ["dist/**", "dist-e2e/**", "node_modules/**", "src/bindings/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts"],
    rules: {
      "no-restricted-syntax": ["error", ...HTML_SINKS],
      "no-implied-eval": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // Tests may hold hostile strings as data, never as markup.
    files: ["**/*.test.ts"],
    rules: { "no-restricted-syntax": ["error", ...HTML_SINKS.filter((r) => !r.selector.startsWith("Literal") && !r.selector.startsWith("TemplateElement"))] },
  },
);
