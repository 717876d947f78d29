// Canopy's window: wires the backend, the directory-controller and the views.

import { tauriBackend } from "./backend";
import { DirectoryController } from "./directory-controller";
import type { FolderState } from "./tree-state";
import type { WatchShortfallKind } from "./bindings/WatchShortfallKind";
import { install as installTestHooks } from "./e2e-hooks";
import { Highlighter, spawnColourWorker } from "./highlight/highlighter";
import { el } from "./view/dom";
import { formatCount, plural } from "./view/format";
import { matchSentence, partialOrderSentence } from "./view/folder-words";
import { PathBar } from "./view/path-bar";
import { PreviewPane } from "./view/preview-pane";
import { Toolbar } from "./view/toolbar";
import { TreeView } from "./view/tree-view";
import { guardWebview } from "./view/webview-guard";
import { measureName, sizeText } from "./view/size-words";
import type { SizesState } from "./sizes-state";
import type { ControllerSnapshot } from "./directory-controller";
import type { ServerState } from "./bindings/ServerState";
import { phaseWords, REMOTE_LIMITS } from "./servers";
import { ServerWatch } from "./server-watch";
import { SecretPrompts } from "./view/secret-dialog";
import { PlacesController } from "./places";
import { PlacesView } from "./view/places-view";
import { button } from "./view/dom";
import { icon } from "./view/icons";
import { DragOut } from "./view/drag-out";
import { GridView } from "./view/grid-view";
import { Thumbs } from "./thumbs";
import { FindController } from "./find-controller";
import { FindField } from "./view/find-field";
import { FindResults } from "./view/find-results";

guardWebview(document);

const controller = new DirectoryController(tauriBackend);
const toolbar = new Toolbar(controller, tauriBackend);
const pathBar = new PathBar(controller);
const tree = new TreeView(controller);
const preview = new PreviewPane(tauriBackend, new Highlighter(spawnColourWorker), (h, folder) => void controller.revealEntry(h, folder));
const places = new PlacesController(tauriBackend);
const placesView = new PlacesView({
  open: (root) => void controller.open(root),
  bookmarkHere: () => void bookmarkHere(),
});
const placesToggle = button("Places (F9)", { class: "icon-only", "aria-expanded": "true", "aria-controls": "places" }, icon("sidebar"));
placesToggle.addEventListener("click", () => togglePlaces());
toolbar.element.prepend(placesToggle);
const dragOut = new DragOut(tree.rowsElement, tauriBackend, (m) => controller.say(m));
const thumbs = new Thumbs(tauriBackend, () => shown && grid.update(shown));
const grid = new GridView(controller, thumbs);
grid.setShown(false);
new DragOut(grid.cellsElement, tauriBackend, (m) => controller.say(m));
const listButton = button("List (Ctrl+1)", { class: "icon-only", "aria-pressed": "true" }, icon("list"));
const gridButton = button("Grid (Ctrl+2)", { class: "icon-only", "aria-pressed": "false" }, icon("grid"));
listButton.addEventListener("click", () => showAs("list"));
gridButton.addEventListener("click", () => showAs("grid"));
toolbar.element.append(el("span", { class: "view-switch", role: "group", "aria-label": "View" }, listButton, gridButton));
const find = new FindController(tauriBackend, controller);
const findResults = new FindResults(find, () => findField.focus());
const findField = new FindField(find, () => findResults.focus(), () => tree.focus());
find.subscribe((f) => findResults.update(f));
toolbar.element.append(findField.element);
const status = el("div", { class: "status-bar", role: "status", "aria-live": "polite" });
const live = el("div", { class: "live-notice", role: "status", "aria-live": "polite", hidden: "" });

const app = document.getElementById("app")!;
app.replaceChildren(
  el("header", { class: "top" }, toolbar.element, pathBar.element),
  el("main", { class: "panes" }, placesView.element, tree.element, grid.element, el("div", { class: "splitter", "aria-hidden": "true" }), preview.element),
  findResults.element,
  el("footer", { class: "bottom" }, status, live),
);

let shown: ControllerSnapshot | null = null;
let server: ServerState | null = null;
const serverWatch = new ServerWatch(tauriBackend, (state) => {
  server = state;
  pathBar.showConnection(state);
  if (shown) footer(shown);
});

/** The List / Grid switch (Ctrl+1, Ctrl+2): one of the two shows the open folder. */
function showAs(mode: "list" | "grid"): void {
  const asGrid = mode === "grid";
  tree.element.hidden = asGrid;
  grid.setShown(asGrid);
  listButton.setAttribute("aria-pressed", String(!asGrid));
  gridButton.setAttribute("aria-pressed", String(asGrid));
  if (shown) grid.update(shown);
  if (asGrid) grid.focus();
  else tree.focus();
}

/** Shows or hides the sidebar (the toolbar's Places button, F9). */
function togglePlaces(): void {
  placesView.setCollapsed(!placesView.collapsed);
  placesToggle.setAttribute("aria-expanded", String(!placesView.collapsed));
}

/** "Bookmark this folder" (Ctrl+D): the open folder, in the GTK bookmarks. */
async function bookmarkHere(): Promise<void> {
  const t = controller.state;
  if (!t) return;
  controller.say(await places.bookmark(t.root.handle));
}

function showPlaces(): void {
  placesView.update(places.snapshot(), shown?.tree?.crumbs ?? null, controller.recentServers);
}
places.subscribe(() => showPlaces());

controller.subscribe((s) => {
  shown = s;
  showPlaces();
  toolbar.update(s);
  pathBar.update(s);
  tree.update(s);
  grid.update(s);
  preview.update(s);
  serverWatch.follow(s.tree?.server != null ? s.tree.root.handle : null);
  find.followRoot(s.tree?.root.handle ?? null);
  footer(s);
});

/** The status bar and, beside it, what does not refresh live or a lost connection. */
function footer(s: ControllerSnapshot): void {
  const remote = (s.tree?.server ?? null) !== null;
  const summary = rootSummary(s.tree?.root ?? null, s.sizes);
  status.textContent = s.notice ?? (remote ? [summary, REMOTE_LIMITS].filter(Boolean).join(" · ") : summary);
  const trouble = remote && server && (server.phase === "lost" || server.phase === "reconnecting") ? phaseWords(server).text : null;
  live.hidden = trouble === null && s.liveShortfall === null;
  live.textContent = trouble ?? (s.liveShortfall ? liveNotice(s.liveShortfall.kind, s.unwatchedCount) : "");
  live.title = trouble ?? s.liveShortfall?.message ?? "";
}

/** "1,234 entries · 3.4 GiB disk usage · 30 ignored · order is partial: 800 of 1,234 checked", or the filter's matches. */
function rootSummary(f: FolderState | null, sizes: SizesState): string {
  if (!f || f.total === null) return "";
  const parts = [matchSentence(f) ?? `${f.lowerBound ? "at least " : ""}${plural(f.total, "entry", "entries")}`];
  const counted = sizes.records.get(f.handle);
  if (counted) parts.push(`${sizeText(counted, sizes.measure)} ${measureName(sizes.measure)}${counted.stale ? " (stale)" : ""}`);
  if (f.ignoredHidden) parts.push(`${formatCount(f.ignoredHidden)} ignored`);
  const partial = partialOrderSentence(f);
  if (partial) parts.push(partial);
  return parts.join(" · ");
}

function liveNotice(kind: WatchShortfallKind, unwatched: number): string {
  const n = `${unwatched.toLocaleString("en-US")} open ${unwatched === 1 ? "folder" : "folders"}`;
  switch (kind) {
    case "cap":
      return `Too many open folders to watch: ${n} refresh when the window regains focus.`;
    case "systemLimit":
      return `The system's watch limit is reached: ${n} refresh when the window regains focus.`;
    case "unavailable":
      return "Live refresh is off: folders refresh when the window regains focus.";
    case "notResponding":
      return `Not responding (a dead or hung mount?): ${n} refresh when the window regains focus.`;
  }
}

/** A text field or a list box: Escape there is theirs. */
function isField(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.closest("input, textarea, select, [role=dialog], [role=alertdialog], [role=menu]") !== null);
}

// Folders that are not watched catch up when the window comes back.
window.addEventListener("focus", () => controller.refreshUnwatched());

document.addEventListener("keydown", (e) => {
  if (e.altKey && e.key === "ArrowLeft") void controller.goBack();
  else if (e.altKey && e.key === "ArrowRight") void controller.goForward();
  else if (e.altKey && e.key === "ArrowUp") void controller.goUp();
  else if (e.key === "F5") void controller.refresh();
  else if (e.ctrlKey && e.key.toLowerCase() === "l") pathBar.startEditing();
  // Ctrl+F in the preview finds in the preview (its own handler took it); anywhere else, the toolbar's Find.
  else if (e.ctrlKey && e.key.toLowerCase() === "f") {
    if (!e.defaultPrevented && !preview.element.contains(e.target as Node)) findField.focus();
  }
  else if (e.ctrlKey && e.shiftKey && e.key.toLowerCase() === "s") toolbar.sizes.toggle();
  else if (e.ctrlKey && !e.shiftKey && e.key.toLowerCase() === "d") void bookmarkHere();
  // Ctrl+C in the tree copies the selected entry as a file manager does (in a text field or the preview, text is copied as usual).
  else if (e.ctrlKey && !e.shiftKey && e.key.toLowerCase() === "c" && (tree.rowsElement.contains(e.target as Node) || grid.cellsElement.contains(e.target as Node)) && controller.state?.selected) void dragOut.copy([controller.state.selected]);
  else if (e.key === "F9") togglePlaces();
  else if (e.ctrlKey && !e.shiftKey && e.key === "1") showAs("list");
  else if (e.ctrlKey && !e.shiftKey && e.key === "2") showAs("grid");
  // Esc stops counting sizes, unless something nearer took it (a menu, a field, a dialog).
  else if (e.key === "Escape" && !e.defaultPrevented && !isField(e.target) && controller.cancelSizes()) {
    /* stopped */
  } else if (e.key === "Escape" && !e.defaultPrevented && !isField(e.target) && find.stop()) {
    /* stopped */
  } else return;
  e.preventDefault();
});

// The test build's page hooks (`vite build --mode e2e`). In every other
// build the condition is false at build time, so the branch and the unused
// hooks module are left out of the bundle.
if (import.meta.env.MODE === "e2e") installTestHooks(controller, preview);

void (async () => {
  const secrets = new SecretPrompts((id, secret) => controller.answerSecret(id, secret));
  await tauriBackend
    .listenShell((e) => secrets.handle(e) || places.onShellEvent(e) || controller.onShellEvent(e))
    .catch((err) => console.warn("no live refresh:", err));
  void places.load();
  const launch = await tauriBackend.startupTarget();
  controller.setRecentServers(launch.servers);
  let opened = false;
  if (launch.restore) {
    opened = await controller.restore(launch.restore);
    if (!opened) {
      await controller.open({ text: "~" });
      controller.say("The folder you had open could not be opened again; this is your home folder.");
    }
  }
  if (!opened && !launch.restore) await controller.open(launch.startup.folder, { select: launch.startup.select });
  if (launch.notice) controller.say(launch.notice);
  tree.focus();
})();
