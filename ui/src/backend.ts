// The one typed module through which the UI reaches the engine.
//
// Command names are a closed union (`CommandName`, generated from the Rust
// list the app registers and its capability allows, so a misspelled or
// removed command does not type-check); every call sends one `request` object and
// every failure arrives as a `BackendError` carrying the engine's stable
// `code`. The UI branches on `code`, never on message text. `tauriBackend`
// talks to the real app; tests use the in-memory fake in `fake-backend.ts`.

import { Channel, invoke, type InvokeArgs } from "@tauri-apps/api/core";
import type { CommandName } from "./bindings/CommandName";
import type { ErrorCode } from "./bindings/ErrorCode";
import type { CanopyError } from "./bindings/CanopyError";
import type { ListRequest } from "./bindings/ListRequest";
import type { Listing } from "./bindings/Listing";
import type { ListProgress } from "./bindings/ListProgress";
import type { LocateRequest } from "./bindings/LocateRequest";
import type { Located } from "./bindings/Located";
import type { Launch } from "./bindings/Launch";
import type { SavedView } from "./bindings/SavedView";
import type { ShellEvent } from "./bindings/ShellEvent";
import type { WatchStatus } from "./bindings/WatchStatus";
import type { PreviewRequest } from "./bindings/PreviewRequest";
import type { PreviewChunk } from "./bindings/PreviewChunk";
import type { CopiedPath } from "./bindings/CopiedPath";
import type { ArchiveSummary } from "./bindings/ArchiveSummary";
import type { SizesProgress, SizesReport, SizesRequest } from "./sizes-wire";
import type { MediaRequest } from "./bindings/MediaRequest";
import type { PdfDocument } from "./bindings/PdfDocument";
import type { PdfPage } from "./bindings/PdfPage";
import type { PhotoDetails } from "./bindings/PhotoDetails";
import type { AudioDetails } from "./bindings/AudioDetails";
import type { VideoDetails } from "./bindings/VideoDetails";
import type { VideoPoster } from "./bindings/VideoPoster";
import type { PhotoRender } from "./bindings/PhotoRender";
import type { FontPreview } from "./bindings/FontPreview";
import type { MediaStreamUrl } from "./bindings/MediaStreamUrl";
import type { ServerState } from "./bindings/ServerState";
import type { Places } from "./bindings/Places";
import type { PlaceSpace } from "./bindings/PlaceSpace";
import type { BookmarkOutcome } from "./bindings/BookmarkOutcome";
import type { TransferOffer } from "./bindings/TransferOffer";
import type { Thumbnail } from "./bindings/Thumbnail";
import type { ThumbBackend } from "./thumbs";
import type { FindBackend } from "./find-controller";
import type { FindProgress } from "./bindings/FindProgress";
import type { FindReport } from "./bindings/FindReport";
import type { Revealed } from "./bindings/Revealed";

export interface Backend {
  /**
   * Lists a folder. With `onProgress`, hears how far the listing got while
   * it runs (`ListProgress`, at most every LIST_PROGRESS_INTERVAL; nothing
   * once the engine answered, though one may still be on its way).
   */
  listDirectory(request: ListRequest, onProgress?: (progress: ListProgress) => void): Promise<Listing>;
  cancelListing(requestId: number): Promise<void>;
  /**
   * Counts the recursive size of a folder and of the folders below it to
   * `depth`. With `onProgress`, hears partial figures (lower bounds) and
   * each folder's finished one as soon as it is done. Cancelled with
   * `cancelListing(requestId)` (it then answers CANCELLED).
   */
  folderSizes(request: SizesRequest, onProgress?: (progress: SizesProgress) => void): Promise<SizesReport>;
  locate(request: LocateRequest): Promise<Located>;
  /** What to open first: the command line's path, or the remembered view. */
  startupTarget(): Promise<Launch>;
  /** The native folder picker; the picked folder's handle, or null when cancelled. */
  pickFolder(): Promise<string | null>;
  /** Watches exactly these folders (root first, tree order) for live refresh. */
  watchFolders(folders: string[]): Promise<WatchStatus>;
  /** Receives what the app pushes: folder changes, a second instance's path, notices. */
  listenShell(onEvent: (event: ShellEvent) => void): Promise<void>;
  /** The view to remember when the window closes. */
  rememberView(view: SavedView): Promise<void>;
  /** Where the connection to the server a handle is on stands (never connects, never waits). */
  serverState(handle: string): Promise<ServerState>;
  /** Answers ssh's password or passphrase prompt `id` (`null`: cancel). */
  answerSecret(id: number, secret: string | null): Promise<void>;
}

/** The preview's calls: bounded reads of one file, and the file actions. */
export interface PreviewBackend {
  readPreview(request: PreviewRequest): Promise<PreviewChunk>;
  /** Raw image bytes (no base64). */
  readImage(handle: string): Promise<ArrayBuffer>;
  /** What an archive (an entry with `archive` set) holds, as its index counted it. */
  archiveSummary(handle: string): Promise<ArchiveSummary>;
  reveal(handle: string): Promise<void>;
  openDefault(handle: string): Promise<void>;
  /** Copies the path; says whether it was quoted for a shell (`$'…'`). */
  copyPath(handle: string): Promise<CopiedPath>;
  /** A PDF's facts, from the sandboxed renderer. */
  pdfDocument(request: MediaRequest): Promise<PdfDocument>;
  /** One PDF page at a width, and its text, from the sandboxed renderer. */
  pdfPage(request: MediaRequest): Promise<PdfPage>;
  /** A photo's EXIF details. */
  photoDetails(handle: string): Promise<PhotoDetails>;
  /** An audio file's tags, properties and cover art. */
  audioDetails(handle: string): Promise<AudioDetails>;
  /** A video's facts (container, duration, resolution, codecs), from ffprobe in the sandbox. */
  videoDetails(request: MediaRequest): Promise<VideoDetails>;
  /** A video's poster frame at a width, from ffmpegthumbnailer in the sandbox (encoded again by the app). */
  videoPoster(request: MediaRequest): Promise<VideoPoster>;
  /** A TIFF, HEIF or AVIF photo at a width, drawn by vips in the sandbox (encoded again by the app). */
  photoRender(request: MediaRequest): Promise<PhotoRender>;
  /** A font's facts and a sample line at a width, from fc-query and hb-view in the sandbox. */
  fontPreview(request: MediaRequest): Promise<FontPreview>;
  /** Opens the file as the one stream the page may play (ending the last); its canopy-media: URL. */
  openMediaStream(handle: string): Promise<MediaStreamUrl>;
  /** Ends the stream: its URL answers nothing. */
  closeMediaStream(): Promise<void>;
  /** Stops a render job (its child is killed); it answers CANCELLED. */
  cancelRender(requestId: number): Promise<void>;
}

/** The sidebar's calls (Places). */
export interface PlacesBackend {
  /** Home, the user folders, the GTK bookmarks and the mounts (never waits on a mount). */
  listPlaces(): Promise<Places>;
  /** A mount's free space; TIMEOUT when it does not answer (a dead mount). */
  placeSpace(mount: string): Promise<PlaceSpace>;
  /** Adds the folder to the GTK bookmarks file. */
  addBookmark(handle: string): Promise<BookmarkOutcome>;
}

/** Dragging entries out and Ctrl+C. */
export interface TransferBackend {
  /** What dragging these entries out offers other applications. */
  transferOffer(handles: string[]): Promise<TransferOffer>;
  /** Puts the entries on the clipboard as file managers do. */
  copyFiles(handles: string[]): Promise<TransferOffer>;
}

export class BackendError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.code = code;
    this.name = "BackendError";
  }
  toWire(): CanopyError {
    return { code: this.code, message: this.message };
  }
}

function isCanopyError(value: unknown): value is CanopyError {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { code?: unknown }).code === "string" &&
    typeof (value as { message?: unknown }).message === "string"
  );
}

/** Any rejection as a BackendError: the engine's own, or Tauri's plain strings as IO. */
export function toBackendError(err: unknown): BackendError {
  if (err instanceof BackendError) return err;
  if (isCanopyError(err)) return new BackendError(err.code, err.message);
  return new BackendError("IO", typeof err === "string" ? err : String(err));
}

/** The one place a command is invoked: only a listed name type-checks. */
async function invokeCommand<T>(command: CommandName, args: InvokeArgs): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (err) {
    throw toBackendError(err);
  }
}

function call<T>(command: CommandName, request?: unknown): Promise<T> {
  return invokeCommand<T>(command, request === undefined ? {} : { request });
}

export const tauriBackend: Backend & PreviewBackend & PlacesBackend & TransferBackend & ThumbBackend & FindBackend = {
  listDirectory: (request, onProgress) =>
    onProgress
      ? invokeCommand<Listing>("list_directory", { request, progress: new Channel<ListProgress>(onProgress) })
      : call<Listing>("list_directory", request),
  folderSizes: (request, onProgress) =>
    onProgress
      ? invokeCommand<SizesReport>("folder_sizes", { request, progress: new Channel<SizesProgress>(onProgress) })
      : call<SizesReport>("folder_sizes", request),
  cancelListing: async (requestId) => {
    await call<boolean>("cancel_listing", { requestId });
  },
  locate: (request) => call<Located>("locate", request),
  startupTarget: () => call<Launch>("startup_target"),
  readPreview: (request) => call<PreviewChunk>("read_preview", request),
  readImage: (handle) => call<ArrayBuffer>("read_image", { handle }),
  archiveSummary: (handle) => call<ArchiveSummary>("archive_summary", { handle }),
  reveal: (handle) => call<void>("reveal", { handle }),
  openDefault: (handle) => call<void>("open_default", { handle }),
  copyPath: (handle) => call<CopiedPath>("copy_path", { handle }),
  pdfDocument: (request) => call<PdfDocument>("pdf_document", request),
  pdfPage: (request) => call<PdfPage>("pdf_page", request),
  photoDetails: (handle) => call<PhotoDetails>("photo_details", { handle }),
  audioDetails: (handle) => call<AudioDetails>("audio_details", { handle }),
  videoDetails: (request) => call<VideoDetails>("video_details", request),
  videoPoster: (request) => call<VideoPoster>("video_poster", request),
  photoRender: (request) => call<PhotoRender>("photo_render", request),
  fontPreview: (request) => call<FontPreview>("font_preview", request),
  openMediaStream: (handle) => call<MediaStreamUrl>("open_media_stream", { handle }),
  closeMediaStream: () => call<void>("close_media_stream"),
  cancelRender: async (requestId) => {
    await call<boolean>("cancel_render", { requestId });
  },
  pickFolder: () => call<string | null>("pick_folder"),
  watchFolders: (folders) => call<WatchStatus>("watch_folders", { folders }),
  listenShell: async (onEvent) => {
    const channel = new Channel<ShellEvent>();
    channel.onmessage = onEvent;
    await invokeCommand<void>("listen_shell", { channel });
  },
  rememberView: (view) => call<void>("remember_view", view),
  serverState: (handle) => call<ServerState>("server_state", { handle }),
  answerSecret: (id, secret) => call<void>("answer_secret", { id, secret }),
  listPlaces: () => call<Places>("list_places"),
  placeSpace: (mount) => call<PlaceSpace>("place_space", { mount }),
  addBookmark: (handle) => call<BookmarkOutcome>("add_bookmark", { handle }),
  transferOffer: (handles) => call<TransferOffer>("transfer_offer", { handles }),
  copyFiles: (handles) => call<TransferOffer>("copy_files", { handles }),
  thumbnail: (handle) => call<Thumbnail>("thumbnail", { handle }),
  findBelow: (request, onProgress) => invokeCommand<FindReport>("find_below", { request, progress: new Channel<FindProgress>(onProgress) }),
  revealPath: (request) => call<Revealed>("reveal_path", request),
};
