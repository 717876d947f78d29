// The webview's lock-down lives in tauri.conf.json and the capability file;
// these checks fail if either is loosened.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const conf = JSON.parse(readFileSync(new URL("../../tauri.conf.json", import.meta.url), "utf8"));
const cap = JSON.parse(readFileSync(new URL("../../src-tauri/capabilities/main.json", import.meta.url), "utf8"));

describe("webview lock-down", () => {
  const csp = conf.app.security.csp as Record<string, string>;

  it("allows scripts from the app only", () => {
    expect(csp["default-src"]).toBe("'self'");
    expect(csp["script-src"]).toBe("'self'");
    for (const bad of ["data:", "blob:", "asset:", "unsafe-eval", "unsafe-inline", "*"]) {
      expect(csp["script-src"]).not.toContain(bad);
    }
    // The colour worker is a file of the app; a worker from a blob: or data:
    // URL (code made at run time) is refused.
    expect(csp["worker-src"]).toBe("'self'");
    expect(csp["child-src"]).toBeUndefined();
    expect(csp["img-src"]).toBe("'self' blob:");
    // IPC, and the one audio stream the app opened (fetched range by range).
    expect(csp["connect-src"]).toBe("ipc: http://ipc.localhost canopy-media:");
    expect(csp["object-src"]).toBe("'none'");
    // Audio plays from a blob: the page made of the app's stream, never file: or http:.
    expect(csp["media-src"]).toBe("blob:");
  });

  it("exposes no global Tauri object and freezes the prototype", () => {
    expect(conf.app.withGlobalTauri).toBe(false);
    expect(conf.app.security.freezePrototype).toBe(true);
    expect(conf.app.security.dangerousDisableAssetCspModification).toBe(false);
  });

  it("leaves the main window to the app, which builds it with its refusals", () => {
    // tauri.conf.json only describes the window; src-tauri/src/window.rs
    // builds it with navigation, new windows and downloads refused.
    const main = (conf.app.windows as { label: string; create?: boolean }[]).find((w) => w.label === "main");
    expect(main?.create).toBe(false);
  });

  it("grants the main window Canopy's own commands and nothing else", () => {
    expect(cap.windows).toEqual(["main"]);
    const plugins = (cap.permissions as string[]).filter((p) => p.includes(":"));
    expect(plugins).toEqual([]);
    expect((cap.permissions as string[]).every((p) => p.startsWith("allow-"))).toBe(true);
  });
});

describe("the .deb", () => {
  it("depends on xdg-utils and file: without xdg-mime, Open… cannot vet an application and refuses", () => {
    expect(conf.bundle.linux.deb.depends).toEqual(expect.arrayContaining(["xdg-utils", "file"]));
  });
});
