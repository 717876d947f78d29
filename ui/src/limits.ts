// Limits the UI works with. The engine's come from the generated bindings
// (one place: src-tauri/core/src/limits.rs); only the UI's own are set here.

import { LIMITS } from "./bindings/limit-values";

export const DEFAULT_DEPTH = LIMITS.defaultDepth;
export const NESTED_CAP = LIMITS.nestedCap;
export const PAGE = LIMITS.page;
/** Bytes asked for by one preview read (the engine's PREVIEW_CHUNK). */
export const PREVIEW_CHUNK = LIMITS.previewChunk;
/** Deepest listing the depth control offers. */
export const MAX_UI_DEPTH = 5;
/** Text beyond this many characters is shown without syntax highlighting. */
export const HIGHLIGHT_LIMIT = 512 * 1024;
/**
 * Milliseconds the colour worker may spend on one request (a chunk's syntax
 * colouring or markdown) before it is stopped and the text stays plain. UI
 * only: the engine has no say in how long colouring takes.
 */
export const HIGHLIGHT_BUDGET_MS = 2000;
/** Live refresh: at most this many re-renders a second come from changes on disk. */
export const LIVE_RENDERS_PER_SECOND = 4;
/** Live refresh: folders re-read at once (each folder has at most one re-read in flight). */
export const LIVE_CONCURRENCY = 4;
/** Live refresh: entries of one folder re-read after a change; further loaded pages are dropped and re-read when scrolled to. */
export const LIVE_REFRESH_MAX_ENTRIES = 5000;
/** Type-ahead: keys typed this far apart (ms) start a new prefix. */
export const TYPEAHEAD_RESET_MS = 800;
/** The filter field: typing settles this long (ms) before the folder is filtered again. */
export const FILTER_DEBOUNCE_MS = 250;
/** The preview's find bar: typing settles this long (ms) before the lines are searched again. */
export const FIND_DEBOUNCE_MS = 150;
/** Most expanded folders remembered across a restart. */
export const SAVED_EXPANDED_MAX = LIMITS.savedExpandedMax;
/** Most recent servers remembered ("Connect to server…"). */
export const RECENT_SERVERS_MAX = LIMITS.recentServersMax;
/** How often (ms) the window asks where a server's connection stands while one of its folders is open. UI only. */
export const SERVER_STATE_POLL_MS = 1000;
/** Opening a folder: its progress ("Reading… 12 folders, 34,512 names") shows once it has taken this long (ms), so a fast listing never flickers. */
export const PROGRESS_DELAY_MS = 300;
/** Opening a folder: screen readers hear its progress at most this often (ms); the text on screen follows every report. */
export const PROGRESS_ANNOUNCE_MS = 5000;
/** Folder sizes: the most folders one count names for figures (the engine's SIZES_MAX_SHOWN). */
export const SIZES_MAX_SHOWN = 20_000;
/** Folder sizes: figures remembered for the session, in folders; those counted longest ago are forgotten first. */
export const SIZES_REMEMBERED_MAX = 20_000;
/** The grid: thumbnails kept in memory (blob URLs), the least recently made dropped first. UI only. */
export const THUMBS_KEPT = 400;
/** The grid: thumbnail requests in flight at once (the engine decodes each on a blocking thread). UI only. */
export const THUMB_REQUESTS = 4;
/** The grid: rows of cells rendered above and below the ones in view (their thumbnails are asked too). UI only. */
export const GRID_OVERSCAN_ROWS = 1;
