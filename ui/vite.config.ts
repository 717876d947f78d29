import { defineConfig } from "vitest/config";

// The app embeds ui/dist (tauri.conf.json `frontendDist`). No inline scripts
// or styles are emitted, so the CSP can stay `script-src 'self'`.
export default defineConfig({
  clearScreen: false,
  server: { port: 5173, strictPort: true },
  build: {
    outDir: "dist",
    target: "safari16",
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
  },
  test: {
    environment: "node",
    include: ["src/**/*.test.ts"],
  },
});
