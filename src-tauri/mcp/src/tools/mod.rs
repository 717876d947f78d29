//! The MCP tools, one file each: [`list_directory`], [`find_in_folder`] and
//! [`read_file`]. A tool's file holds its arguments, its structured result,
//! its description (what it tells a model), its call and its registration;
//! what the two listing tools share is in `listing`. The server's state, the
//! handler and the helpers every call uses are in [`crate::server`].
//!
//! Promise: every number a tool's texts state (its description and the
//! descriptions in its schemas) comes from a constant, most of them from
//! [`canopy_core::limits`], or is part of an example that states no limit;
//! each tool lists them in its `NUMBERS`, and a test holds the texts to it.

use rmcp::handler::server::router::tool::ToolRouter;

use crate::server::Canopy;

pub mod file_info;
pub mod find_in_folder;
pub mod folder_sizes;
pub mod list_directory;
pub mod list_roots;
mod listing;
pub mod read_file;
pub mod read_files;
pub mod search;

pub use listing::{OrderState, SortOrder};

/// Every tool the server offers.
pub(crate) fn router() -> ToolRouter<Canopy> {
    Canopy::list_directory_router()
        + Canopy::find_in_folder_router()
        + Canopy::read_file_router()
        + Canopy::list_roots_router()
        + Canopy::read_files_router()
        + Canopy::search_router()
        + Canopy::file_info_router()
        + Canopy::folder_sizes_router()
}

/// `n` as the tools' texts print a large number: digits in groups of three,
/// with commas (`40,000`).
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// The numbers a tool's texts (its description, and the descriptions in its
/// input and output schemas) may hold.
#[cfg(test)]
pub(crate) struct Numbers {
    /// The constants whose values the texts state, by name: each appears.
    pub constants: &'static [(&'static str, u64)],
    /// Passages that hold digits but state no limit (`file2 before
    /// file10`): each appears, and no other digit may.
    pub examples: &'static [&'static str],
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_core::limits::MCP_REPLY_CHARS;
    use rmcp::model::Tool;

    fn numbers_of(tool: &str) -> &'static Numbers {
        match tool {
            "list_directory" => &list_directory::NUMBERS,
            "find_in_folder" => &find_in_folder::NUMBERS,
            "read_file" => &read_file::NUMBERS,
            "list_roots" => &list_roots::NUMBERS,
            "read_files" => &read_files::NUMBERS,
            "search" => &search::NUMBERS,
            "file_info" => &file_info::NUMBERS,
            "folder_sizes" => &folder_sizes::NUMBERS,
            other => panic!("{other} has no NUMBERS: list the numbers its texts state"),
        }
    }

    /// Every text of `tool` an agent reads: the description, then each
    /// description in its schemas.
    fn texts(tool: &Tool) -> Vec<String> {
        fn collect(v: &serde_json::Value, out: &mut Vec<String>) {
            match v {
                serde_json::Value::Object(map) => {
                    for (k, v) in map {
                        match v {
                            serde_json::Value::String(s) if k == "description" => {
                                out.push(s.clone())
                            }
                            _ => collect(v, out),
                        }
                    }
                }
                serde_json::Value::Array(items) => items.iter().for_each(|v| collect(v, out)),
                _ => {}
            }
        }
        let mut out = vec![tool.description.as_deref().unwrap_or_default().to_string()];
        collect(
            &serde_json::Value::Object((*tool.input_schema).clone()),
            &mut out,
        );
        if let Some(schema) = &tool.output_schema {
            collect(&serde_json::Value::Object((**schema).clone()), &mut out);
        }
        out
    }

    /// The numbers in `text`, as written: runs of digits, groups of three
    /// after a comma read as part of the same number (`40,000`).
    fn numbers_in(text: &str) -> Vec<String> {
        let bytes = text.as_bytes();
        let mut found = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            if !bytes[i].is_ascii_digit() {
                i += 1;
                continue;
            }
            let start = i;
            loop {
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
                let group = bytes
                    .get(i + 1..i + 4)
                    .is_some_and(|g| g.iter().all(u8::is_ascii_digit));
                let ends = bytes.get(i + 4).is_none_or(|b| !b.is_ascii_digit());
                if bytes.get(i) == Some(&b',') && group && ends {
                    i += 1;
                } else {
                    break;
                }
            }
            found.push(text[start..i].to_string());
        }
        found
    }

    fn value(written: &str) -> u64 {
        written.replace(',', "").parse().unwrap_or(u64::MAX)
    }

    #[test]
    fn numbers_are_read_as_written() {
        assert_eq!(
            numbers_in("at most 40,000 characters, 0-32768 of 1,2 x10"),
            ["40,000", "0", "32768", "1", "2", "10"]
        );
        assert_eq!(grouped(40_000), "40,000");
        assert_eq!(grouped(1_234_567), "1,234,567");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(0), "0");
    }

    #[test]
    fn descriptions_stay_under_two_kilobytes() {
        for tool in router().list_all() {
            let d = tool.description.as_deref().unwrap_or_default();
            assert!(d.len() < 2048, "{}: {} bytes: {d}", tool.name, d.len());
        }
    }

    #[test]
    fn each_tool_states_the_current_value_of_each_limit_it_names() {
        for tool in router().list_all() {
            let numbers = numbers_of(&tool.name);
            let all = texts(&tool).join("\n");
            let stated: Vec<u64> = numbers_in(&all).iter().map(|n| value(n)).collect();
            for (name, v) in numbers.constants {
                assert!(
                    stated.contains(v),
                    "{}'s texts name {name} but do not state its value {v}: {all}",
                    tool.name
                );
            }
            for example in numbers.examples {
                assert!(
                    all.contains(example),
                    "{}'s texts no longer hold the example {example:?}: drop it from NUMBERS",
                    tool.name
                );
            }
        }
    }

    #[test]
    fn no_tool_text_holds_a_number_typed_by_hand() {
        for tool in router().list_all() {
            let numbers = numbers_of(&tool.name);
            for text in texts(&tool) {
                let mut rest = text.clone();
                for example in numbers.examples {
                    rest = rest.replace(example, " ");
                }
                for n in numbers_in(&rest) {
                    assert!(
                        numbers.constants.iter().any(|(_, v)| *v == value(&n)),
                        "{}: {n} is typed by hand (no constant in its NUMBERS has that value; state it from one, or list an example holding it): {text}",
                        tool.name
                    );
                }
            }
        }
    }

    #[test]
    fn a_reply_limit_is_written_grouped() {
        // Agents read the budget as tools state it; all three say it the same way.
        let want = format!("at most {} characters", grouped(MCP_REPLY_CHARS as u64));
        for d in [list_directory::description(), find_in_folder::description()] {
            assert!(d.contains(&want), "{d}");
        }
    }
}
