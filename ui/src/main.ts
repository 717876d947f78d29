// Canopy's window: wires the backend, the directory-controller and the views.

import { tauriBackend } from "./backend";
import { DirectoryController } from "./directory-controller";
import { el } from "./view/dom";
import { PathBar } from "./view/path-bar";
import { PreviewPane } from "./view/preview-pane";
import { Toolbar } from "./view/toolbar";
import { TreeView } from "./view/tree-view";

const controller = new DirectoryController(tauriBackend);
const toolbar = new Toolbar(controller, tauriBackend);
const pathBar = new PathBar(controller);
const tree = new TreeView(controller);
const preview = new PreviewPane(tauriBackend);
const status = el("div", { class: "status-bar", role: "status", "aria-live": "polite" });

const app = document.getElementById("app")!;
app.replaceChildren(
  el("header", { class: "top" }, toolbar.element, pathBar.element),
  el("main", { class: "panes" }, tree.element, el("div", { class: "splitter", "aria-hidden": "true" }), preview.element),
  status,
);

controller.subscribe((s) => {
  toolbar.update(s);
  pathBar.update(s);
  tree.update(s);
  preview.update(s);
  const f = s.tree?.root;
  const summary = f && f.total !== null ? `${f.lowerBound ? "at least " : ""}${f.total.toLocaleString("en-US")} entries` : "";
  status.textContent = s.notice ?? summary;
});

document.addEventListener("keydown", (e) => {
  if (e.altKey && e.key === "ArrowLeft") void controller.goBack();
  else if (e.altKey && e.key === "ArrowRight") void controller.goForward();
  else if (e.altKey && e.key === "ArrowUp") void controller.goUp();
  else if (e.key === "F5") void controller.refresh();
  else if (e.ctrlKey && e.key.toLowerCase() === "l") pathBar.startEditing();
  else if (e.ctrlKey && e.key.toLowerCase() === "f") preview.openFind();
  else return;
  e.preventDefault();
});

/**
 * Measures, inside the page, the time from asking for a folder to the frame
 * after its first rows render, and the rows then in the DOM. Used by the
 * end-to-end benchmark; it changes nothing but the open folder.
 */
async function measureOpen(text: string): Promise<{ ms: number; rows: number; ok: boolean }> {
  const t0 = performance.now();
  const ok = await controller.open({ text });
  await new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve())));
  const ms = performance.now() - t0;
  return { ms, rows: document.querySelectorAll('[role="treeitem"]').length, ok };
}
Object.defineProperty(window, "canopyMeasureOpen", { value: measureOpen });

void (async () => {
  const startup = await tauriBackend.startupTarget();
  await controller.open(startup.folder, { select: startup.select });
  tree.focus();
})();
