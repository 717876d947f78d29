//! The protocol face of `canopy-mcp`: the tools it lists, how it starts and
//! refuses to start, and what it links.

mod common;

use std::process::Command;

use common::{binary, Server, Tree};
use serde_json::{json, Value};

#[tokio::test]
async fn tools_list_matches_its_snapshot() {
    let t = Tree::new();
    let s = Server::start(&[&t.path()]).await;
    let tools = s.client.list_all_tools().await.expect("tools/list answers");
    let got = serde_json::to_string_pretty(&serde_json::to_value(&tools).unwrap()).unwrap() + "\n";
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/tools_list.json");
    if std::env::var_os("CANOPY_UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&file, &got).unwrap();
    }
    let want = std::fs::read_to_string(&file).unwrap_or_default();
    if got != want {
        std::fs::write(file.with_extension("json.new"), &got).unwrap();
        panic!("tools/list changed: compare {} with tools_list.json.new (CANOPY_UPDATE_SNAPSHOTS=1 accepts it)", file.display());
    }
}

#[tokio::test]
async fn every_tool_is_read_only_closed_world_titled_and_typed() {
    let t = Tree::new();
    let s = Server::start(&[&t.path()]).await;
    let tools = s.client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["find_in_folder", "list_directory", "read_file"]);
    for tool in &tools {
        let v = serde_json::to_value(tool).unwrap();
        assert!(v["title"].as_str().is_some_and(|t| !t.is_empty()), "{} has a title", tool.name);
        assert_eq!(v["annotations"]["readOnlyHint"], json!(true), "{} is read-only", tool.name);
        assert_eq!(v["annotations"]["openWorldHint"], json!(false), "{} is closed-world", tool.name);
        assert_eq!(v["inputSchema"]["type"], json!("object"));
        assert_eq!(v["outputSchema"]["type"], json!("object"), "{} has an output schema", tool.name);
        let description = v["description"].as_str().unwrap();
        assert!(description.len() < 2048, "{}'s description is {} bytes", tool.name, description.len());
        let required = if tool.name == "find_in_folder" { json!(["path", "pattern"]) } else { json!(["path"]) };
        assert_eq!(v["inputSchema"]["required"], required, "only the path (and find_in_folder's pattern) is required");
    }
}

#[test]
fn without_a_root_it_exits_2() {
    let none = Command::new(binary()).output().unwrap();
    assert_eq!(none.status.code(), Some(2), "no --root");
    assert!(String::from_utf8_lossy(&none.stderr).contains("--root"), "the message says what is missing");
    let t = Tree::new();
    let file = t.file("plain.txt");
    for bad in [vec!["--root".into()], vec!["--root".into(), t.at("missing").into_os_string()], vec!["--root".into(), file.into_os_string()], vec!["--bogus".into()]] {
        let out = Command::new(binary()).args(&bad).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

#[test]
fn the_binary_links_no_gui_library() {
    let out = Command::new("ldd").arg(env!("CARGO_BIN_EXE_canopy-mcp")).output().expect("ldd runs");
    let libs = String::from_utf8_lossy(&out.stdout);
    assert!(libs.contains("libc.so"), "ldd listed the libraries: {libs}");
    for gui in ["gtk", "webkit", "gdk", "javascriptcore", "soup"] {
        assert!(!libs.to_lowercase().contains(gui), "{gui} is linked:\n{libs}");
    }
}

#[tokio::test]
async fn a_malformed_call_is_the_only_protocol_error() {
    let t = Tree::new();
    let s = Server::start(&[&t.path()]).await;
    let unknown = s.client.call_tool(rmcp::model::CallToolRequestParams::new("delete_everything")).await;
    assert!(unknown.is_err(), "an unknown tool is a protocol error");
    // Arguments of the wrong type or unknown name are the model's to fix: results.
    for bad in [json!({}), json!({"path": 5}), json!({"path": "x", "depth": "deep"}), json!({"path": "x", "colour": true})] {
        let r = common::Reply::of(s.call("list_directory", bad.clone()).await);
        assert_eq!(r.code(), "INVALID_ARGUMENT", "{bad}: {}", r.text);
    }
    let _: Value = json!(null);
}

#[tokio::test]
async fn an_error_quoting_a_huge_argument_stays_within_the_budget() {
    let t = Tree::new();
    let s = Server::start(&[&t.path()]).await;
    let huge = "a".repeat(1_000_000);
    let root = common::path_arg(&t.path());
    let cases = [
        ("list_directory", json!({ "path": format!("/{huge}") }), "DENIED"),
        ("read_file", json!({ "path": format!("/{huge}") }), "DENIED"),
        ("list_directory", json!({ "path": root, "depth": huge }), "INVALID_ARGUMENT"),
        ("find_in_folder", json!({ "path": root, "pattern": "x", huge.clone(): 1 }), "INVALID_ARGUMENT"),
    ];
    for (tool, args, code) in cases {
        let r = common::Reply::of(s.call(tool, args).await);
        assert_eq!(r.code(), code, "{tool}: {}", &r.text[..200]);
        let n = r.text.chars().count();
        assert!(n <= common::BUDGET, "{tool}'s {code} reply is {n} characters");
        assert!(r.text.ends_with(" characters in all)"), "the cut says so: ...{}", &r.text[r.text.len() - 60..]);
    }
}

#[test]
fn the_schema_check_catches_what_breaks_a_schema() {
    let defs = json!({ "K": { "type": "object", "properties": { "n": { "type": "integer", "minimum": 0 } }, "required": ["n"] } });
    let schema = json!({ "type": "object", "properties": { "k": { "$ref": "#/$defs/K" }, "e": { "oneOf": [{ "const": "a" }, { "const": "b" }] }, "s": { "type": ["string", "null"] } }, "required": ["k"] });
    assert_eq!(common::schema_breaks(&json!({ "k": { "n": 1 }, "e": "a", "s": null }), &schema, &defs, "v"), None);
    for bad in [json!({}), json!({ "k": { "n": -1 } }), json!({ "k": { "n": 1 }, "e": "c" }), json!({ "k": { "n": 1 }, "x": 1 }), json!({ "k": { "n": 1 }, "s": 2 })] {
        assert!(common::schema_breaks(&bad, &schema, &defs, "v").is_some(), "{bad}");
    }
}
