//! Archives through the real binary: a path that runs through a zip or a
//! tar inside the roots is listed, searched and read inside it with the
//! same caps and budgets; its own path is plain names only; a link to an
//! archive elsewhere opens nothing; a zip bomb stops with `RATIO`.
//!
//! The archives are written by python3's `zipfile` and `tarfile`.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::{list_args, path_arg, Reply, Server, Tree, BUDGET};
use serde_json::{json, Value};

/// Runs the python3 `script` with the archive to write as `sys.argv[1]`.
fn python(script: &str, out: &Path) {
    let status = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(out)
        .status()
        .expect("python3 runs");
    assert!(status.success(), "python3 wrote {}", out.display());
}

/// The body of `readme.txt` in [`site_zip`]: more than one read's worth.
fn readme() -> String {
    (0..2_000).map(|i| format!("archived line {i}\n")).collect()
}

/// `site.zip`: `assets/` (its own entry) holding `logo.svg` and `img/` with
/// 150 stored `.png` files and a note, and `readme.txt` deflated.
fn site_zip(t: &Tree) -> std::path::PathBuf {
    let zip = t.at("site.zip");
    let script = format!(
        r#"
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], 'w') as z:
    z.writestr(zipfile.ZipInfo('assets/'), '')
    z.writestr('assets/logo.svg', '<svg/>')
    for i in range(150):
        z.writestr(f'assets/img/p{{i}}.png', 'png', compress_type=zipfile.ZIP_STORED)
    z.writestr('assets/img/notes.txt', 'notes')
    z.writestr('readme.txt', {:?}, compress_type=zipfile.ZIP_DEFLATED)
"#,
        readme()
    );
    python(&script, &zip);
    zip
}

async fn read(s: &Server, args: Value) -> Reply {
    Reply::of(s.call("read_file", args).await)
}

async fn find(s: &Server, args: Value) -> Reply {
    Reply::of(s.call("find_in_folder", args).await)
}

#[tokio::test]
async fn a_folder_inside_a_zip_is_listed_with_the_same_caps() {
    let t = Tree::new();
    let zip = site_zip(&t);
    let s = Server::start(&[&t.path()]).await;

    let top = s.list(list_args(&t.path())).await.ok();
    assert_eq!(
        top.lines(),
        ["[ARCHIVE] site.zip"],
        "an archive on disk has a tag of its own"
    );

    let inside = s.list(list_args(&zip.join("assets"))).await.ok();
    let lines = inside.lines();
    assert_eq!(lines[0], "[DIR] img", "{}", inside.text);
    assert_eq!(lines[1], "[FILE] img/notes.txt", "natural order inside too");
    assert_eq!(lines[2], "[FILE] img/p0.png");
    assert_eq!(
        lines[101], "[WARNING] img: 51 items hidden (showing first 100 of 151 total)",
        "a nested folder inside an archive is capped as on disk: {}",
        inside.text
    );
    assert_eq!(lines[102], "[REST] img: 51 .png");
    assert_eq!(lines[103], "[FILE] logo.svg");
    assert_eq!(lines.len(), 104, "{}", inside.text);
    assert_eq!(
        inside.structured["path"],
        json!(path_arg(&zip.join("assets")))
    );
    assert_eq!(inside.structured["total"], json!(2));
    assert_eq!(inside.structured["truncatedFolders"], json!(1));

    // The archive itself is its top folder; a relative path is the first root's.
    let whole = s.list(json!({ "path": "site.zip", "depth": 1 })).await.ok();
    assert_eq!(whole.lines(), ["[DIR] assets", "[FILE] readme.txt"]);
    let slash = s
        .list(json!({ "path": "site.zip/assets/", "depth": 1 }))
        .await;
    assert_eq!(
        slash.ok().lines(),
        ["[DIR] img", "[FILE] logo.svg"],
        "a trailing slash names the same folder"
    );
}

#[tokio::test]
async fn a_deflated_member_is_read_in_chunks() {
    let t = Tree::new();
    let zip = site_zip(&t);
    let body = readme();
    assert!(
        std::fs::metadata(&zip).unwrap().len() < body.len() as u64,
        "the fixture is compressed"
    );
    let s = Server::start(&[&t.path()]).await;
    let member = path_arg(&zip.join("readme.txt"));
    let first = read(&s, json!({ "path": member })).await.ok();
    assert_eq!(
        first.lines()[0],
        format!(
            "[TEXT utf-8] showing bytes 0-32768 of {}; call read_file with offset 32768 for more",
            body.len()
        )
    );
    let mut got = first.text.split_once("\n\n").unwrap().1.to_string();
    let rest = read(&s, json!({ "path": member, "offset": 32768 }))
        .await
        .ok();
    assert!(
        rest.lines()[0].ends_with("; end of file"),
        "{}",
        rest.lines()[0]
    );
    got.push_str(rest.text.split_once("\n\n").unwrap().1);
    assert_eq!(got, body, "the chunks put together are the member");

    let folder = read(&s, json!({ "path": path_arg(&zip.join("assets")) })).await;
    assert_eq!(folder.code(), "NOT_A_FILE", "{}", folder.text);
    let raw = read(&s, json!({ "path": path_arg(&zip) })).await.ok();
    assert!(
        raw.lines()[0].starts_with("[BINARY]"),
        "the archive file itself reads as its bytes: {}",
        raw.lines()[0]
    );
}

#[tokio::test]
async fn find_in_folder_searches_a_folder_inside_an_archive() {
    let t = Tree::new();
    let zip = site_zip(&t);
    let s = Server::start(&[&t.path()]).await;
    let img = zip.join("assets/img");
    let r = find(&s, json!({ "path": path_arg(&img), "pattern": "p1?.png" }))
        .await
        .ok();
    let lines = r.lines();
    assert_eq!(
        lines[0], "[MATCH] img: 10 of 151 entries match \"p1?.png\"",
        "{}",
        r.text
    );
    assert_eq!(
        lines[1..],
        (10..20)
            .map(|i| format!("[FILE] p{i}.png"))
            .collect::<Vec<_>>()
    );
    assert_eq!(r.structured["matched"], json!(10));
    let none = find(&s, json!({ "path": path_arg(&img), "pattern": "readme" }))
        .await
        .ok();
    assert_eq!(
        none.lines(),
        ["[MATCH] img: 0 of 151 entries match \"readme\""],
        "only the searched folder's own entries"
    );
}

#[tokio::test]
async fn a_cursor_pages_a_folder_inside_an_archive_and_only_that_folder() {
    let t = Tree::new();
    let zip = t.at("many.zip");
    python(
        r#"
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], 'w') as z:
    for d in ('a', 'b'):
        for i in range(6000):
            z.writestr(f'{d}/entry_{i:05}.txt', '')
"#,
        &zip,
    );
    let s = Server::start(&[&t.path()]).await;
    let a = path_arg(&zip.join("a"));
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut args = json!({ "path": a, "depth": 1 });
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let page = s.list(args).await.ok();
        assert!(page.chars() <= BUDGET);
        seen.extend(common::entry_paths(&page.text));
        cursor = page.next_cursor();
        if cursor.is_none() {
            break;
        }
        let other = s
            .list(json!({ "path": path_arg(&zip.join("b")), "depth": 1, "cursor": cursor }))
            .await;
        assert_eq!(
            other.code(),
            "INVALID_ARGUMENT",
            "a cursor continues only its own folder of the archive: {}",
            other.text
        );
    }
    let want: Vec<String> = (0..6000).map(|i| format!("entry_{i:05}.txt")).collect();
    assert_eq!(seen, want, "every entry once, in order, over the pages");
}

#[tokio::test]
async fn a_path_inside_an_archive_holds_plain_names_only() {
    let t = Tree::new();
    let zip = site_zip(&t);
    python(
        r#"
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], 'w') as z:
    z.writestr('../evil.txt', 'evil')
    z.writestr('fine.txt', 'fine')
"#,
        &t.at("evil.zip"),
    );
    let s = Server::start(&[&t.path()]).await;
    let z = path_arg(&zip);
    for (tool, path) in [
        ("read_file", format!("{z}/assets/../readme.txt")),
        ("read_file", format!("{z}//readme.txt")),
        ("read_file", format!("{z}/./readme.txt")),
        ("list_directory", format!("{z}/assets/img/..")),
        ("find_in_folder", format!("{z}/assets/../assets")),
    ] {
        let mut args = json!({ "path": path });
        if tool == "find_in_folder" {
            args["pattern"] = json!("png");
        }
        let r = Reply::of(s.call(tool, args).await);
        assert_eq!(r.code(), "INVALID_ARGUMENT", "{tool} {path}: {}", r.text);
        assert!(r.text.contains("plain names"), "{}", r.text);
    }

    // A name that would climb out is listed escaped, marked, and never opened.
    let evil = s.list(list_args(&t.at("evil.zip"))).await.ok();
    assert_eq!(
        evil.lines(),
        [
            "[FILE] ..\\u{2f}evil.txt",
            "[UNSAFE_NAME] ..\\u{2f}evil.txt",
            "[FILE] fine.txt"
        ]
    );
    let back = read(&s, json!({ "path": "evil.zip/..\\u{2f}evil.txt" })).await;
    assert_eq!(back.code(), "INVALID_ARGUMENT", "{}", back.text);
    let fine = read(&s, json!({ "path": "evil.zip/fine.txt" })).await.ok();
    assert!(fine.text.ends_with("\n\nfine"), "{}", fine.text);
}

#[tokio::test]
async fn a_link_to_an_archive_outside_the_roots_opens_nothing() {
    let outside = Tree::new();
    let secret = outside.at("secret.zip");
    python(
        r#"
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], 'w') as z:
    z.writestr('inner/secret.txt', 'the secret')
"#,
        &secret,
    );
    let t = Tree::new();
    let zip = site_zip(&t);
    let root = t.dir("root");
    t.link("root/abs.zip", &secret);
    t.link(
        "root/rel.zip",
        format!(
            "../../{}/secret.zip",
            outside.path().file_name().unwrap().to_str().unwrap()
        ),
    );
    t.link("root/out", outside.path());
    t.link("root/inside.zip", &zip);
    assert!(
        root.join("rel.zip").exists(),
        "the relative link reaches the archive"
    );
    let s = Server::start(&[&root]).await;

    for link in ["abs.zip", "rel.zip", "out/secret.zip"] {
        for (tool, path) in [
            ("list_directory", link.to_string()),
            ("list_directory", format!("{link}/inner")),
            ("find_in_folder", format!("{link}/inner")),
            ("read_file", format!("{link}/inner/secret.txt")),
            ("read_file", link.to_string()),
        ] {
            let mut args = json!({ "path": path });
            if tool == "find_in_folder" {
                args["pattern"] = json!("secret");
            }
            let r = Reply::of(s.call(tool, args).await);
            assert_eq!(r.code(), "DENIED", "{tool} {path}: {}", r.text);
            // A link in the root says it is one; a path through it is outside.
            let says = if path == link && !link.contains('/') {
                format!("DENIED: {path} is a link leading outside the folders")
            } else {
                format!("DENIED: {path} is outside the folders")
            };
            assert!(
                r.text.starts_with(&says),
                "nothing of the archive is told: {}",
                r.text
            );
        }
    }

    // The same link to an archive is refused while the archive lies
    // outside the root, and followed once the roots hold it.
    let r = s.list(json!({ "path": "inside.zip" })).await;
    assert_eq!(r.code(), "DENIED", "{}", r.text);
    let both = Server::start(&[&t.path()]).await;
    let ok = both
        .list(json!({ "path": path_arg(&root.join("inside.zip/assets")), "depth": 1 }))
        .await
        .ok();
    assert_eq!(ok.lines(), ["[DIR] img", "[FILE] logo.svg"]);
    assert_eq!(
        ok.structured["path"],
        json!(path_arg(&zip.join("assets"))),
        "listed by the archive's real path"
    );
}

#[tokio::test]
async fn a_zip_bomb_member_stops_with_ratio() {
    let t = Tree::new();
    let bomb = t.at("bomb.zip");
    python(
        r#"
import sys, zipfile
info = zipfile.ZipInfo('zeros.bin')
info.compress_type = zipfile.ZIP_DEFLATED
with zipfile.ZipFile(sys.argv[1], 'w', compresslevel=9) as z:
    with z.open(info, 'w') as f:
        block = bytes(1 << 20)
        for _ in range(200):
            f.write(block)
"#,
        &bomb,
    );
    assert!(
        std::fs::metadata(&bomb).unwrap().len() < 300_000,
        "200 MB of zeros deflate to a few hundred KB"
    );
    let s = Server::start(&[&t.path()]).await;
    let member = path_arg(&bomb.join("zeros.bin"));
    // The archive's own claim (209,715,200 bytes from about 200 KB) passes the
    // ratio guard: refused before a byte is inflated, at any offset.
    for offset in [0u64, 150_000_000] {
        let r = read(&s, json!({ "path": member, "offset": offset })).await;
        assert_eq!(r.code(), "RATIO", "{}", r.text);
    }
}

#[tokio::test]
async fn a_compressed_tar_lists_what_tar_lists() {
    let t = Tree::new();
    let tgz = t.at("src.tar.gz");
    python(
        r#"
import io, sys, tarfile
def add(tar, name, data=None):
    info = tarfile.TarInfo(name)
    if data is None:
        info.type = tarfile.DIRTYPE
        tar.addfile(info)
    else:
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
with tarfile.open(sys.argv[1], 'w:gz') as tar:
    add(tar, 'src')
    add(tar, 'src/main.rs', b'fn main() {}\n')
    for d in range(3):
        for f in range(5):
            add(tar, f'src/mod{d}/deep/file{f}.rs', b'// file\n')
    add(tar, 'README.md', b'# readme\n')
"#,
        &tgz,
    );
    let tar = Command::new("tar")
        .arg("-tzf")
        .arg(&tgz)
        .output()
        .expect("tar runs");
    assert!(tar.status.success());
    let mut want: Vec<String> = String::from_utf8(tar.stdout)
        .unwrap()
        .lines()
        .map(|l| l.trim_end_matches('/').to_string())
        .collect();
    // tar names the folders a path implies only when they have an entry of their own.
    for implied in [
        "src/mod0",
        "src/mod1",
        "src/mod2",
        "src/mod0/deep",
        "src/mod1/deep",
        "src/mod2/deep",
    ] {
        want.push(implied.to_string());
    }
    want.sort();
    let s = Server::start(&[&t.path()]).await;
    let r = s
        .list(json!({ "path": "src.tar.gz", "depth": 4 }))
        .await
        .ok();
    let mut got = common::entry_paths(&r.text);
    got.sort();
    assert_eq!(got, want, "{}", r.text);
    let main = read(&s, json!({ "path": "src.tar.gz/src/main.rs" }))
        .await
        .ok();
    assert!(main.text.ends_with("\n\nfn main() {}\n"), "{}", main.text);
}

#[tokio::test]
async fn a_path_through_a_file_that_is_no_archive_or_to_no_entry_says_so() {
    let t = Tree::new();
    site_zip(&t);
    t.write("notes.zip", b"just text, named like an archive");
    let s = Server::start(&[&t.path()]).await;
    let top = s.list(list_args(&t.path())).await.ok();
    assert_eq!(
        top.lines(),
        ["[FILE] notes.zip", "[ARCHIVE] site.zip"],
        "an archive is told by its bytes, not its name"
    );
    let plain = s.list(json!({ "path": "notes.zip" })).await;
    assert_eq!(plain.code(), "NOT_A_DIRECTORY", "{}", plain.text);
    assert!(plain.text.contains("call read_file"), "{}", plain.text);
    let through = read(&s, json!({ "path": "notes.zip/inner.txt" })).await;
    assert_eq!(through.code(), "NOT_A_DIRECTORY", "{}", through.text);
    let missing = s.list(json!({ "path": "site.zip/nowhere" })).await;
    assert_eq!(missing.code(), "NOT_FOUND", "{}", missing.text);
    let missing = read(&s, json!({ "path": "site.zip/assets/nothing.txt" })).await;
    assert_eq!(missing.code(), "NOT_FOUND", "{}", missing.text);
}
