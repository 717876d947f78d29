// Every command the window may call, named once. Included (`include!`) by
// `src-tauri/build.rs`, which declares each to the ACL (so it gets an
// `allow-<command>` permission), and by `lib.rs`, which registers each
// `commands::<name>` handler and exports the names to
// `ui/src/bindings/CommandName.ts` (the `backend.ts` union). So:
// - a name here without a handler in `commands.rs` does not compile;
// - a handler not named here is dead code, an error in `commands.rs`;
// - the capability must allow exactly these (`tests::command_list`).
//
// Plain `//` comments: `include!` takes items, not a module's `//!`.

/// Hands the command names, as identifiers, to the macro `$then`.
macro_rules! with_command_list {
    ($then:ident) => {
        $then! {
            list_directory,
            cancel_listing,
            folder_sizes,
            locate,
            startup_target,
            read_preview,
            read_image,
            archive_summary,
            pdf_document,
            pdf_page,
            photo_details,
            audio_details,
            video_details,
            video_poster,
            photo_render,
            font_preview,
            open_media_stream,
            close_media_stream,
            cancel_render,
            reveal,
            open_default,
            copy_path,
            pick_folder,
            watch_folders,
            listen_shell,
            remember_view,
            server_state,
            answer_secret,
            list_places,
            place_space,
            add_bookmark,
            transfer_offer,
            copy_files,
            thumbnail,
            find_below,
            reveal_path,
        }
    };
}

/// `&["list_directory", ...]`: the names as strings.
macro_rules! command_name_slice {
    ($($name:ident),* $(,)?) => {
        &[$(stringify!($name)),*]
    };
}
