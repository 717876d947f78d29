// Page hooks for the end-to-end suite, in the test build of the UI only
// (`vite build --mode e2e` into ui/dist-e2e, embedded by the app's `e2e`
// feature). The release's ui/dist has none of this: the suite checks the
// release binaries for these names.

import type { DirectoryController } from "./directory-controller";
import type { PreviewPane } from "./view/preview-pane";

/**
 * `canopyMeasureOpen(text)`: the time inside the page from asking for a
 * folder to the frame after its first rows render, and the rows then in the
 * DOM (the UI benchmark). `canopySetColourBudget(ms)`: the colour worker's
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
  Object.defineProperty(window, "canopySetColourBudget", {
    value: (ms: number) => {
      preview.highlighter.budgetMs = ms;
    },
  });
}
