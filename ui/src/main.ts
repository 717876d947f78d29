// Canopy's window: wires the backend, the directory-controller and the views.

import { tauriBackend } from "./backend";
import { DirectoryController } from "./directory-controller";
import { install as installTestHooks } from "./e2e-hooks";
import { Highlighter, spawnColourWorker } from "./highlight/highlighter";
import { el } from "./view/dom";
import { PathBar } from "./view/path-bar";
import { PreviewPane } from "./view/preview-pane";
import { Toolbar } from "./view/toolbar";
import { TreeView } from "./view/tree-view";
import { guardWebview } from "./view/webview-guard";

guardWebview(document);

const controller = new DirectoryController(tauriBackend);
const toolbar = new Toolbar(controller, tauriBackend);
const pathBar = new PathBar(controller);
const tree = new TreeView(controller);
const preview = new PreviewPane(tauriBackend, new Highlighter(spawnColourWorker));
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

// The test build's page hooks (`vite build --mode e2e`). In every other
// build the condition is false at build time, so the branch and the unused
// hooks module are left out of the bundle.
if (import.meta.env.MODE === "e2e") installTestHooks(controller, preview);

void (async () => {
  const startup = await tauriBackend.startupTarget();
  await controller.open(startup.folder, { select: startup.select });
  tree.focus();
})();
