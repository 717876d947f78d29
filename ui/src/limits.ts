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
/** Live refresh: at most this many re-renders a second come from changes on disk. */
export const LIVE_RENDERS_PER_SECOND = 4;
/** Live refresh: folders re-read at once (each folder has at most one re-read in flight). */
export const LIVE_CONCURRENCY = 4;
/** Live refresh: entries of one folder re-read after a change; further loaded pages are dropped and re-read when scrolled to. */
export const LIVE_REFRESH_MAX_ENTRIES = 5000;
/** Most expanded folders remembered across a restart (the engine's SAVED_EXPANDED_MAX). */
export const SAVED_EXPANDED_MAX = 4096;
