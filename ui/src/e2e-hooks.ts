// Page hooks for the end-to-end suite, in the test build of the UI only
// (`vite build --mode e2e` into ui/dist-e2e, embedded by the app's `e2e`
// feature). The release's ui/dist has none of this: the suite checks the
// release binaries for these names.

import type { DirectoryController } from "./directory-controller";
import type { PreviewPane } from "./view/preview-pane";

/**
 * `canopyMeasureOpen(text)`: the time inside the page from asking for a
 * folder to the frame after its first rows render, and the rows then in the
 * DOM (the UI benchmark). `canopyMeasureSizes(text)`: opens the folder, then
 * the time from "Sizes" to the frame after the first figure of that count
 * arrived (it is then painted in its row or the status bar: `first`), and
 * to the frame after the engine's answer (`all`). `canopySetColourBudget(ms)`: the colour worker's
 * budget per request, so a test can tell a cancelled request from one that
 * merely ran out of time.
 */
export function install(controller: DirectoryController, preview: PreviewPane): void {
  async function measureOpen(text: string): Promise<{ ms: number; rows: number; ok: boolean }> {
    const t0 = performance.now();
    const ok = await controller.open({ text });
    await new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve())));
    const ms = performance.now() - t0;
    return { ms, rows: document.querySelectorAll('[role="treeitem"]').length, ok };
  }
  Object.defineProperty(window, "canopyMeasureOpen", { value: measureOpen });
  async function measureSizes(text: string): Promise<{ first: number; all: number; ok: boolean }> {
    const ok = await controller.open({ text });
    const frame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));
    await frame();
    const t0 = performance.now();
    let first = -1;
    const running = controller.computeSizes();
    const run = controller.snapshot().sizes.run;
    // A figure of this count (figures remembered from an earlier one are on screen at once).
    const counted = () => [...controller.snapshot().sizes.records.values()].some((r) => r.requestId === run?.requestId);
    void (async () => {
      while (first < 0 && controller.snapshot().sizes.run !== null) {
        if (counted()) {
          await frame();
          first = performance.now() - t0;
        } else await frame();
      }
    })();
    await running;
    await frame();
    const all = performance.now() - t0;
    if (first < 0 && counted()) first = all;
    return { first, all, ok };
  }
  Object.defineProperty(window, "canopyMeasureSizes", { value: measureSizes });
  Object.defineProperty(window, "canopySetColourBudget", {
    value: (ms: number) => {
      preview.highlighter.budgetMs = ms;
    },
  });
}
