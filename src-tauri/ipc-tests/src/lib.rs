//! IPC tests live in tests/.
