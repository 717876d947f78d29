// The engine's limits as the UI uses them. They mirror src-tauri/core/src/limits.rs
// (a test reads that file and fails if they drift).

export const DEFAULT_DEPTH = 2;
export const NESTED_CAP = 100;
export const PAGE = 500;
export const MAX_UI_DEPTH = 5;
/** Bytes asked for by one preview read (the engine's PREVIEW_CHUNK). */
export const PREVIEW_CHUNK = 256 * 1024;
/** Text beyond this many characters is shown without syntax highlighting. */
export const HIGHLIGHT_LIMIT = 512 * 1024;
/**
 * Milliseconds the colour worker may spend on one request (a chunk's syntax
 * colouring or markdown) before it is stopped and the text stays plain. UI
 * only: the engine has no say in how long colouring takes.
 */
export const HIGHLIGHT_BUDGET_MS = 2000;
