//! The command list against what is written elsewhere: the capability file,
//! and the TypeScript union `backend.ts` invokes through.

use std::collections::BTreeMap;
use std::path::Path;

use crate::COMMANDS;

/// The permission tauri-build generates for a command (`allow-list-directory`).
fn allow(command: &str) -> String {
    format!("allow-{}", command.replace('_', "-"))
}

/// Writes `CommandName.ts` beside the ts-rs bindings (named like their
/// tests, so the suite's staleness check regenerates it: see `scripts/test`).
#[test]
fn export_bindings_command_names() {
    let dir = std::env::var_os("TS_RS_EXPORT_DIR")
        .expect("TS_RS_EXPORT_DIR is set in .cargo/config.toml");
    let names: String = COMMANDS.iter().map(|c| format!("\n  | \"{c}\"")).collect();
    let text = format!(
        "// Generated from src-tauri/src/command_list.rs by `cargo test -p canopy`. Do not edit.\n\n\
         /**\n * The name of a command the window may invoke.\n */\n\
         export type CommandName ={names};\n"
    );
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(Path::new(&dir).join("CommandName.ts"), text).unwrap();
}

#[test]
fn command_names_are_unique() {
    let mut seen = std::collections::BTreeSet::new();
    for c in COMMANDS {
        assert!(seen.insert(c), "{c} is listed twice in command_list.rs");
    }
}

/// Every permission in every capability file, with how often it appears.
fn granted_permissions() -> BTreeMap<String, usize> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("src-tauri/capabilities");
    let mut granted = BTreeMap::new();
    for file in std::fs::read_dir(&folder).unwrap() {
        let path = file.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let capability: serde_json::Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()));
        let permissions = capability["permissions"]
            .as_array()
            .unwrap_or_else(|| panic!("{} has no permissions list", path.display()));
        for permission in permissions {
            // A permission is its identifier, or an object with one and a scope.
            let id = permission
                .as_str()
                .or_else(|| permission["identifier"].as_str());
            let id = id.unwrap_or_else(|| {
                panic!("{}: unreadable permission {permission}", path.display())
            });
            *granted.entry(id.to_owned()).or_insert(0) += 1;
        }
    }
    granted
}

#[test]
fn the_capabilities_allow_exactly_the_listed_commands() {
    let granted = granted_permissions();
    let listed: BTreeMap<String, usize> = COMMANDS.iter().map(|c| (allow(c), 1)).collect();
    let missing: Vec<&String> = listed
        .keys()
        .filter(|p| !granted.contains_key(*p))
        .collect();
    let extra: Vec<&String> = granted
        .keys()
        .filter(|p| !listed.contains_key(*p))
        .collect();
    assert!(
        missing.is_empty(),
        "listed commands the window may not call: {missing:?}"
    );
    assert!(
        extra.is_empty(),
        "granted beyond the command list (no plugin is callable from the page): {extra:?}"
    );
    assert_eq!(granted, listed, "each command is allowed once");
}
