// Generated from src-tauri/src/command_list.rs by `cargo test -p canopy`. Do not edit.

/**
 * The name of a command the window may invoke.
 */
export type CommandName =
  | "list_directory"
  | "cancel_listing"
  | "folder_sizes"
  | "locate"
  | "startup_target"
  | "read_preview"
  | "read_image"
  | "archive_summary"
  | "pdf_document"
  | "pdf_page"
  | "photo_details"
  | "audio_details"
  | "video_details"
  | "video_poster"
  | "photo_render"
  | "font_preview"
  | "open_media_stream"
  | "close_media_stream"
  | "cancel_render"
  | "reveal"
  | "open_default"
  | "copy_path"
  | "pick_folder"
  | "watch_folders"
  | "listen_shell"
  | "remember_view"
  | "server_state"
  | "answer_secret"
  | "list_places"
  | "place_space"
  | "add_bookmark"
  | "transfer_offer"
  | "copy_files";
