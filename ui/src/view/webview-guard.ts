// What the webview would offer that a file browser never needs, refused in
// the page: its default context menu ("Inspect Element", "Download Image",
// "Open Link in New Window", "Reload"...). Canopy's own menu (the tree's)
// still opens; nowhere else does a right-click open anything. Navigation,
// new windows and downloads are refused by the app itself
// (`src-tauri/src/window.rs`), whatever the page does.

export function guardWebview(doc: Document): void {
  doc.addEventListener("contextmenu", (e) => e.preventDefault());
}
