//! Errors as data: one enum of stable codes, and `{ code, message }` on the wire.
//!
//! Consumers (the UI, scripts) branch on [`ErrorCode`], never on the message.
//! A failure below a listing's root is attached to that entry; only a root that
//! cannot be listed at all fails a call.
#![forbid(unsafe_code)]

use serde::Serialize;
use std::fmt;
use std::io;
use ts_rs::TS;

/// A stable, SCREAMING_SNAKE error code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[ts(export)]
pub enum ErrorCode {
    NotFound,
    Denied,
    NotADirectory,
    NotAFile,
    Loop,
    NameTooLong,
    Timeout,
    InvalidArgument,
    Cancelled,
    TooLarge,
    /// "Open…" refused: a program, script, launcher, or content that does
    /// not match its name (see `openable`).
    NotOpenable,
    Io,
    /// Not read: the request's budget (entries, names read or time) was spent
    /// before this folder's turn. Expanding the folder alone reads it.
    Budget,
    /// An archive entry's name would climb out of the archive or merge with
    /// another (`..`, `.`, an empty segment, a leading `/`, a drive letter,
    /// a backslash): listed with its raw name, never opened.
    UnsafeName,
    /// The archive is truncated or its records contradict each other.
    Corrupt,
    /// The archive entry is encrypted: its name is listed, its content is not read.
    Encrypted,
    /// Decompressing would yield more than the ratio guard allows (a zip bomb).
    Ratio,
    /// The archive uses a format or compression method Canopy does not read.
    Unsupported,
    /// An archive inside archives nested deeper than Canopy opens.
    TooDeep,
    /// Another entry of the archive has the same path: both are listed.
    Duplicate,
    /// The server's host key is not in `known_hosts`: the connection was
    /// refused (the message has the server's fingerprint and how to add it).
    HostKeyUnknown,
    /// The server's host key differs from the one in `known_hosts`: the
    /// connection was refused (a man in the middle, or a reinstalled server).
    HostKeyChanged,
    /// The server refused every way `ssh` tried to log in (the message has
    /// `ssh`'s own reason line).
    AuthFailed,
    /// A program the preview needs (a renderer such as `pdftoppm`) is not
    /// installed: the message names its Debian package.
    ToolMissing,
    /// The sandboxed renderer could not make this file's page or frame: it
    /// failed, crashed or passed a limit (its memory, its CPU time, its
    /// output); the window goes on.
    RenderFailed,
}

impl ErrorCode {
    /// The wire token, e.g. `"NOT_A_DIRECTORY"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::NotFound => "NOT_FOUND",
            ErrorCode::Denied => "DENIED",
            ErrorCode::NotADirectory => "NOT_A_DIRECTORY",
            ErrorCode::NotAFile => "NOT_A_FILE",
            ErrorCode::Loop => "LOOP",
            ErrorCode::NameTooLong => "NAME_TOO_LONG",
            ErrorCode::Timeout => "TIMEOUT",
            ErrorCode::InvalidArgument => "INVALID_ARGUMENT",
            ErrorCode::Cancelled => "CANCELLED",
            ErrorCode::TooLarge => "TOO_LARGE",
            ErrorCode::NotOpenable => "NOT_OPENABLE",
            ErrorCode::Io => "IO",
            ErrorCode::Budget => "BUDGET",
            ErrorCode::UnsafeName => "UNSAFE_NAME",
            ErrorCode::Corrupt => "CORRUPT",
            ErrorCode::Encrypted => "ENCRYPTED",
            ErrorCode::Ratio => "RATIO",
            ErrorCode::Unsupported => "UNSUPPORTED",
            ErrorCode::TooDeep => "TOO_DEEP",
            ErrorCode::Duplicate => "DUPLICATE",
            ErrorCode::HostKeyUnknown => "HOST_KEY_UNKNOWN",
            ErrorCode::HostKeyChanged => "HOST_KEY_CHANGED",
            ErrorCode::AuthFailed => "AUTH_FAILED",
            ErrorCode::ToolMissing => "TOOL_MISSING",
            ErrorCode::RenderFailed => "RENDER_FAILED",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error with a stable code and a human message; serialized as `{ code, message }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS, thiserror::Error)]
#[error("{code}: {message}")]
#[ts(export)]
pub struct CanopyError {
    pub code: ErrorCode,
    pub message: String,
}

impl CanopyError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        CanopyError {
            code,
            message: message.into(),
        }
    }

    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidArgument, message)
    }

    /// This error inside an `io::Error`, for a source's calls (see [`CanopyError::from_io`]).
    pub fn into_io(self) -> io::Error {
        io::Error::other(self)
    }

    pub fn cancelled() -> Self {
        Self::new(
            ErrorCode::Cancelled,
            "the request was superseded and stopped",
        )
    }

    /// Maps an OS error to its code; `doing` says what was being attempted,
    /// e.g. "cannot open folder".
    pub fn from_io(err: &io::Error, doing: &str) -> Self {
        // A source's own error (an archive's `CORRUPT`, `UNSAFE_NAME` ...)
        // travels inside the `io::Error` and keeps its code and words.
        if let Some(own) = err.get_ref().and_then(|e| e.downcast_ref::<CanopyError>()) {
            return Self::new(own.code, format!("{doing}: {}", own.message));
        }
        let code = code_of(err);
        let reason = match err.raw_os_error() {
            // std appends " (os error N)"; the code already carries that.
            Some(n) => os_reason(n),
            None => err.to_string(),
        };
        Self::new(code, format!("{doing}: {reason}"))
    }
}

/// The code for an OS error.
pub fn code_of(err: &io::Error) -> ErrorCode {
    if let Some(own) = err.get_ref().and_then(|e| e.downcast_ref::<CanopyError>()) {
        return own.code;
    }
    match err.raw_os_error() {
        Some(libc::ENOENT) => ErrorCode::NotFound,
        Some(libc::EACCES) | Some(libc::EPERM) => ErrorCode::Denied,
        Some(libc::ENOTDIR) => ErrorCode::NotADirectory,
        Some(libc::ELOOP) => ErrorCode::Loop,
        Some(libc::ENAMETOOLONG) => ErrorCode::NameTooLong,
        _ => match err.kind() {
            io::ErrorKind::NotFound => ErrorCode::NotFound,
            io::ErrorKind::PermissionDenied => ErrorCode::Denied,
            _ => ErrorCode::Io,
        },
    }
}

fn os_reason(errno: i32) -> String {
    let full = io::Error::from_raw_os_error(errno).to_string();
    match full.rfind(" (os error") {
        Some(cut) => full[..cut].to_lowercase(),
        None => full,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_serialize_as_screaming_snake_tokens() {
        for code in [
            ErrorCode::NotADirectory,
            ErrorCode::NameTooLong,
            ErrorCode::NotOpenable,
            ErrorCode::Io,
        ] {
            let json = serde_json::to_string(&code).unwrap();
            assert_eq!(
                json,
                format!("\"{}\"", code.as_str()),
                "wire token and as_str must agree"
            );
        }
    }

    #[test]
    fn os_errors_map_to_their_codes_and_drop_the_errno_suffix() {
        let e = CanopyError::from_io(
            &io::Error::from_raw_os_error(libc::EACCES),
            "cannot open folder",
        );
        assert_eq!(e.code, ErrorCode::Denied);
        assert_eq!(e.message, "cannot open folder: permission denied");
        assert_eq!(
            code_of(&io::Error::from_raw_os_error(libc::ELOOP)),
            ErrorCode::Loop
        );
        assert_eq!(
            code_of(&io::Error::from_raw_os_error(libc::EIO)),
            ErrorCode::Io
        );
    }
}
