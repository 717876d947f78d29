// Generated from src-tauri/core/src/limits.rs by `cargo test -p canopy-core`. Do not edit.
import type { Limits } from "./Limits";

export const LIMITS: Limits = {
  defaultDepth: 2,
  imageCap: 33554432,
  maxDepth: 64,
  maxNamesRead: 1000000,
  maxPage: 10000,
  maxPreviewChunk: 4194304,
  maxReplyEntries: 50500,
  maxStuckThreads: 8,
  nestedCap: 100,
  page: 500,
  previewChunk: 262144,
  recentServersMax: 8,
  requestTimeMs: 5000,
  savedExpandedMax: 4096,
  timeBudgetMs: 2000,
};
