//! The MCP tools, one file each: [`list_directory`], [`find_in_folder`] and
//! [`read_file`]. A tool's file holds its arguments, its structured result,
//! its description (what it tells a model), its call and its registration;
//! what the two listing tools share is in `listing`. The server's state, the
//! handler and the helpers every call uses are in [`crate::server`].

use rmcp::handler::server::router::tool::ToolRouter;

use crate::server::Canopy;

pub mod find_in_folder;
pub mod list_directory;
mod listing;
pub mod read_file;

pub use listing::{OrderState, SortOrder};

/// Every tool the server offers.
pub(crate) fn router() -> ToolRouter<Canopy> {
    Canopy::list_directory_router() + Canopy::find_in_folder_router() + Canopy::read_file_router()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_stay_under_two_kilobytes() {
        for d in [list_directory::LIST_DESCRIPTION, find_in_folder::FIND_DESCRIPTION, read_file::READ_DESCRIPTION] {
            assert!(d.len() < 2048, "{} bytes: {d}", d.len());
        }
    }
}
