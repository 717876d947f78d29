//! The shell's promises about its commands: that the one list in
//! `command_list.rs` is what the capability allows and what the UI may
//! invoke (`command_list`).

mod command_list;
