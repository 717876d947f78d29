//! The shell's promises about its commands: that the one list in
//! `command_list.rs` is what the capability allows and what the UI may
//! invoke (`command_list`), and that each command answers through the IPC
//! layer as the window calls it (`ipc`, on Tauri's mock runtime), and that
//! the window, `canopy-list` and `canopy-mcp` answer the same for every
//! kind of place (`faces`).

mod command_list;
mod faces;
mod ipc;
mod remote;
// The test `sshd` of canopy-sftp's tests, shared by path.
#[path = "../../sftp/tests/common/mod.rs"]
mod sshd;
