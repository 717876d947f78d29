// The folder-sizes wire types (issue 19), as the engine exports them.
// PROVISIONAL: written from /work/sizes-contract.md until the engine's
// bindings land; then this file re-exports ui/src/bindings.

import type { CanopyError } from "./bindings/CanopyError";
import type { EntryKind } from "./bindings/EntryKind";
import type { ErrorCode } from "./bindings/ErrorCode";
import type { NamePart } from "./bindings/NamePart";
import type { RootSpec } from "./bindings/RootSpec";

export type SizesRequest = { requestId: number; root: RootSpec; depth?: number; byApparent?: boolean };
export type Shortfall = { code: ErrorCode; count: number; example: string };
export type FolderSizes = {
  diskUsage: number;
  apparent: number;
  files: number;
  folders: number;
  isLowerBound: boolean;
  shortfalls?: Shortfall[];
  otherDisk?: boolean;
};
export type ChildSize = {
  name: string;
  nameParts?: NamePart[];
  handle: string;
  kind: EntryKind;
  diskUsage: number;
  apparent: number;
  items: number;
  isLowerBound: boolean;
};
export type OthersSize = { count: number; diskUsage: number; apparent: number };
export type FolderSizeReport = {
  handle: string;
  path: string;
  depth: number;
  sizes: FolderSizes;
  done: boolean;
  largest?: ChildSize[];
  others?: OthersSize;
};
export type SizesProgress = { requestId: number; folders: FolderSizeReport[]; entries: number };
export type SizesReport = {
  requestId: number;
  root: FolderSizeReport;
  folders: FolderSizeReport[];
  entries: number;
  elapsedMs: number;
  budgetCut?: ErrorCode;
};
export type { CanopyError };
