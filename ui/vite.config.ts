import { defineConfig } from "vitest/config";

// The app embeds ui/dist (tauri.conf.json `frontendDist`). No inline scripts
// or styles are emitted, so the CSP can stay `script-src 'self'`. The colour
// worker is its own file under assets/ (`worker-src 'self'`).
//
// `vite build --mode e2e` is the test build: it writes ui/dist-e2e, which
// only the app's `e2e` cargo feature embeds, and keeps the page's test hooks
// (`import.meta.env.MODE === "e2e"`); every other build leaves them out.
export default defineConfig(({ mode }) => ({
  clearScreen: false,
  server: { port: 5173, strictPort: true },
  build: {
    outDir: mode === "e2e" ? "dist-e2e" : "dist",
    emptyOutDir: true,
    target: "safari16",
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
  },
  worker: { format: "es" as const },
  test: {
    environment: "node",
    include: ["src/**/*.test.ts"],
  },
}));
