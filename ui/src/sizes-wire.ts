// The folder-sizes wire types (issue 19), as the engine exports them: one
// import place for the UI's sizes modules.

export type { ChildSize } from "./bindings/ChildSize";
export type { FolderSizeReport } from "./bindings/FolderSizeReport";
export type { FolderSizes } from "./bindings/FolderSizes";
export type { OtherChildren } from "./bindings/OtherChildren";
export type { Shortfall } from "./bindings/Shortfall";
export type { SizesProgress } from "./bindings/SizesProgress";
export type { SizesReport } from "./bindings/SizesReport";
export type { SizesRequest } from "./bindings/SizesRequest";
