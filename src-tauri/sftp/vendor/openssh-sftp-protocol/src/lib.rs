pub extern crate serde;
pub extern crate ssh_format;
pub extern crate vec_strings;

pub use openssh_sftp_protocol_error::*;

mod handle;
pub use handle::*;

mod seq_iter;
mod visitor;

pub mod constants;
pub mod file_attrs;
pub mod open_options;
pub mod request;
pub mod response;
