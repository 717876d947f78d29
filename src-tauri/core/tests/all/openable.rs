//! "Open…" hands the default application documents only, and exactly the
//! file that was checked: the allowlist, the content checks, and the vetting
//! of the application the system would start (`xdg-mime`, in a desktop
//! confined to a temp folder).

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use canopy_core::default_app::Desktop;
use canopy_core::names::encode_handle;
use canopy_core::openable::check_openable;
use canopy_core::preview::FileRequest;
use canopy_core::{CanopyError, ErrorCode};
use common::*;

/// A desktop that names these default applications: (MIME type, desktop id,
/// the entry's text; `None` leaves the entry missing).
fn desktop(t: &Tree, defaults: &[(&str, &str, Option<&str>)]) -> Desktop {
    let root = t.dir("desktop");
    let mut list = String::from("[Default Applications]\n");
    for (mime, id, text) in defaults {
        list.push_str(&format!("{mime}={id}\n"));
        if let Some(text) = text {
            t.write(format!("desktop/data/applications/{id}"), text.as_bytes());
        }
    }
    t.write("desktop/config/mimeapps.list", list.as_bytes());
    Desktop::confined_to(&root)
}

fn app(exec: &str) -> String {
    format!("[Desktop Entry]\nType=Application\nName=Viewer\nExec={exec}\n")
}

fn open_as(path: &Path, desktop: &Desktop) -> Result<PathBuf, CanopyError> {
    check_openable(
        &FileRequest {
            handle: encode_handle(path),
        },
        desktop,
    )
}

fn refused(path: &Path, desktop: &Desktop) -> String {
    match open_as(path, desktop) {
        Ok(_) => panic!("{} must not be opened", path.display()),
        Err(e) => {
            assert_eq!(
                e.code,
                ErrorCode::NotOpenable,
                "{}: {}",
                path.display(),
                e.message
            );
            e.message
        }
    }
}

/// A zip of empty stored entries with these names, with a valid central directory.
fn zip(names: &[&str]) -> Vec<u8> {
    zip_with(
        &names
            .iter()
            .map(|n| (*n, &b""[..], false))
            .collect::<Vec<_>>(),
    )
}

/// A zip of these entries (name, content, deflated or stored), with a valid
/// central directory (no CRC: nothing here checks it).
fn zip_with(entries: &[(&str, &[u8], bool)]) -> Vec<u8> {
    let (mut out, mut dir) = (Vec::new(), Vec::new());
    for (name, data, deflate) in entries {
        let stored = if *deflate {
            miniz_oxide::deflate::compress_to_vec(data, 6)
        } else {
            data.to_vec()
        };
        let method: u16 = if *deflate { 8 } else { 0 };
        let offset = out.len() as u32;
        // From "version needed" to the extra field's length: the same in both headers.
        let common = [
            &20u16.to_le_bytes()[..],
            &[0, 0],
            &method.to_le_bytes(),
            &[0; 8],
            &(stored.len() as u32).to_le_bytes(),
            &(data.len() as u32).to_le_bytes(),
            &(name.len() as u16).to_le_bytes(),
            &[0, 0],
        ]
        .concat();
        out.extend_from_slice(b"PK\x03\x04");
        out.extend_from_slice(&common);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(&stored);
        dir.extend_from_slice(b"PK\x01\x02\x14\0");
        dir.extend_from_slice(&common);
        dir.extend_from_slice(&[0; 10]);
        dir.extend_from_slice(&offset.to_le_bytes());
        dir.extend_from_slice(name.as_bytes());
    }
    let (dir_offset, dir_size, count) = (out.len() as u32, dir.len() as u32, entries.len() as u16);
    out.extend_from_slice(&dir);
    out.extend_from_slice(b"PK\x05\x06\0\0\0\0");
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&dir_size.to_le_bytes());
    out.extend_from_slice(&dir_offset.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out
}

/// A `.docx` as Word writes it: `[Content_Types].xml` deflated, declaring
/// `overrides` besides the main document.
fn docx(overrides: &str, parts: &[&str]) -> Vec<u8> {
    let types = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\">\
         <Default Extension=\"rels\" ContentType=\"application/vnd.openxmlformats-package.relationships+xml\"/>\
         <Default Extension=\"xml\" ContentType=\"application/xml\"/>\
         <Override PartName=\"/word/document.xml\" ContentType=\"application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml\"/>\
         {overrides}</Types>"
    );
    let mut entries = vec![
        ("[Content_Types].xml", types.as_bytes(), true),
        ("_rels/.rels", &b""[..], true),
        ("word/document.xml", &b""[..], true),
    ];
    entries.extend(parts.iter().map(|p| (*p, &b"VBA"[..], true)));
    zip_with(&entries)
}

/// An ODF document: its `mimetype` entry first, stored, as the format asks.
fn odt(parts: &[&str]) -> Vec<u8> {
    let mut entries = vec![
        (
            "mimetype",
            &b"application/vnd.oasis.opendocument.text"[..],
            false,
        ),
        ("content.xml", &b""[..], true),
    ];
    entries.extend(parts.iter().map(|p| (*p, &b""[..], true)));
    zip_with(&entries)
}

const JPEG: &[u8] = b"\xff\xd8\xff\xe0\0\x10JFIF\0\x01\x01\0\0\x01\0\x01\0\0";
/// A Matroska EBML header (`file` needs its DocType to call it video).
const MKV: &[u8] = b"\x1a\x45\xdf\xa3\xa3\x42\x86\x81\x01\x42\xf7\x81\x01\x42\xf2\x81\x04\x42\xf3\x81\x08\x42\x82\x88matroska\x42\x87\x81\x04\x42\x85\x81\x02";
const LNK: &[u8] = b"L\0\0\0\x01\x14\x02\0\0\0\0\0\xc0\0\0\0\0\0\0F\x9b\0\x08\0";

#[test]
fn documents_whose_content_matches_their_name_open() {
    let t = Tree::new();
    let none = desktop(&t, &[]);
    // Content the system types as the name says (`file`, through xdg-mime).
    let samples: Vec<(&str, Vec<u8>)> = vec![
        ("photo.jpg", JPEG.to_vec()),
        ("PHOTO.JPEG", JPEG.to_vec()),
        ("icon.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec()),
        ("report.pdf", b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n".to_vec()),
        ("notes.txt", "caf\u{e9} notes\n".as_bytes().to_vec()),
        ("readme.md", b"# Title\n\nText.\n".to_vec()),
        (
            "song.mp3",
            b"ID3\x04\0\0\0\0\0\0\xff\xfb\x90\x64\0\0\0\0".to_vec(),
        ),
        ("movie.mkv", MKV.to_vec()),
        ("clip.mp4", b"\0\0\0\x18ftypmp42\0\0\0\0".to_vec()),
        ("letter.docx", docx("", &[])),
        ("letter.odt", odt(&[])),
        ("bundle.zip", zip(&["a.txt", "b/c.txt"])),
        ("logs.tar.gz", b"\x1f\x8b\x08\0\0\0\0\0".to_vec()),
    ];
    for (name, content) in samples {
        let p = t.write(name, &content);
        let got = open_as(&p, &none).unwrap_or_else(|e| panic!("{name} should open: {e}"));
        assert_eq!(got, p, "the path checked is the path opened");
    }
}

#[test]
fn launchers_installers_and_scripts_never_open_whatever_they_hold() {
    let t = Tree::new();
    let none = desktop(&t, &[]);
    for ext in [
        "lnk",
        "LNK",
        "hta",
        "wsf",
        "vbe",
        "jse",
        "inf",
        "reg",
        "msp",
        "url",
        "jnlp",
        "flatpakref",
        "pyz",
        "desktop",
        "AppImage",
        "jar",
        "deb",
        "rpm",
        "run",
        "msi",
        "exe",
        "docm",
        "xlsm",
        "pptm",
        "sh",
        "py",
        "js",
        "ps1",
        "bat",
        "html",
        "svg",
        "doc",
        "xls",
        "ppt",
        "rtf",
    ] {
        // Content that would pass as text, so only the name decides.
        let p = t.write(format!("thing.{ext}"), b"plain words\n");
        let why = refused(&p, &none);
        assert!(why.contains("knows by name"), ".{ext}: {why}");
    }
    assert!(refused(&t.write("no-extension", b"text\n"), &none).contains("knows by name"));
}

#[test]
fn a_windows_shortcut_named_photo_jpg_is_refused() {
    let t = Tree::new();
    let none = desktop(&t, &[]);
    let p = t.write("photo.jpg", LNK);
    assert!(refused(&p, &none).contains("Windows shortcut"));
}

#[test]
fn program_and_shortcut_content_is_refused_under_any_allowed_name() {
    let t = Tree::new();
    let none = desktop(&t, &[]);
    let cases: &[(&str, &[u8], &str)] = &[
        ("notes.txt", b"#!/bin/sh\nrm -rf ~\n", "a script"),
        ("photo.jpg", b"\x7fELF\x02\x01\x01\0", "a program"),
        ("report.pdf", b"MZ\x90\0\x03\0", "a Windows program"),
        ("song.mp3", b"\xca\xfe\xba\xbe\0\0\0\x34", "Java"),
        (
            "readme.md",
            b"\xef\xbb\xbf  [Desktop Entry]\nExec=sh -c evil\n",
            "desktop launcher",
        ),
        (
            "notes.txt",
            b"[InternetShortcut]\nURL=file:///tmp/x.exe\n",
            "Internet shortcut",
        ),
        (
            "notes.txt",
            b"\n<!DOCTYPE html><script>evil()</script>",
            "web page",
        ),
        ("data.csv", b"<svg onload=evil()>", "SVG"),
    ];
    for (name, content, why) in cases {
        let p = t.write(name, content);
        let said = refused(&p, &none);
        assert!(said.contains(why), "{name}: {said}");
    }
}

#[test]
fn content_that_does_not_match_the_name_is_refused() {
    let t = Tree::new();
    let none = desktop(&t, &[]);
    let cases: &[(&str, &[u8])] = &[
        ("report.pdf", b"just some text\n"),
        ("photo.png", JPEG),
        ("movie.mp4", b"\x1a\x45\xdf\xa3"),
        ("empty.jpg", b""),
        ("archive.zip", b"not a zip"),
    ];
    for (name, content) in cases {
        let said = refused(&t.write(name, content), &none);
        assert!(said.contains("not what a"), "{name}: {said}");
    }
    // Text means UTF-8 without NUL.
    assert!(refused(&t.write("nul.txt", b"text\0more"), &none).contains("NUL"));
    assert!(refused(&t.write("latin.txt", b"caf\xe9\n"), &none).contains("UTF-8"));
    let mut long = "x".repeat(70_000).into_bytes();
    long[30_000] = 0xff;
    assert!(
        refused(&t.write("long.txt", &long), &none).contains("UTF-8"),
        "the whole sniffed range is checked"
    );
}

#[test]
fn an_execute_bit_refuses_even_a_real_document() {
    let t = Tree::new();
    let none = desktop(&t, &[]);
    let p = t.write("photo.jpg", JPEG);
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o744)).unwrap();
    assert!(refused(&p, &none).contains("executable"));
}

#[test]
fn macros_in_a_document_and_a_java_manifest_in_a_zip_are_refused() {
    let t = Tree::new();
    let none = desktop(&t, &[]);
    let docm = t.write("report.docx", &docx("", &["word/vbaProject.bin"]));
    assert!(refused(&docm, &none).contains("vbaproject.bin"));
    assert!(refused(
        &t.write("letter.odt", &odt(&["Basic/Standard/Module1.xml"])),
        &none
    )
    .contains("basic/"));
    let jar = t.write("photos.zip", &zip(&["META-INF/MANIFEST.MF", "Main.class"]));
    assert!(refused(&jar, &none).contains("manifest"));
    let mut cut = zip(&["a.txt"]);
    cut.truncate(cut.len() - 22);
    assert!(
        refused(&t.write("cut.zip", &cut), &none).contains("cannot be checked"),
        "a zip that cannot be checked"
    );
}

#[test]
fn a_fifo_with_an_allowed_name_is_not_a_file_and_never_opened() {
    let t = Tree::new();
    let none = desktop(&t, &[]);
    let fifo = t.fifo("song.mp3");
    let writer = BlockedWriter::on(&fifo);
    assert_eq!(open_as(&fifo, &none).unwrap_err().code, ErrorCode::NotAFile);
    assert!(writer.still_blocked(), "the fifo was not opened");
}

/// An executable stand-in for a program (xdg-mime names an application
/// only when its program exists); returns its absolute path.
fn program(t: &Tree, name: &str) -> String {
    let p = t.write(format!("bin/{name}"), b"#!/bin/sh\nexit 0\n");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p.display().to_string()
}

/// A default application and the file it would be asked to open.
struct Case {
    mime: &'static str,
    id: &'static str,
    file: &'static str,
    content: Vec<u8>,
    /// Exec's program (made as a stand-in) and the rest of the entry.
    program: &'static str,
    rest: &'static str,
    /// Words the refusal must hold.
    why: &'static str,
}

#[test]
fn a_default_application_that_runs_code_is_refused() {
    let case = |mime, id, file, content: &[u8], program, rest, why| Case {
        mime,
        id,
        file,
        content: content.to_vec(),
        program,
        rest,
        why,
    };
    let cases = [
        case(
            "image/jpeg",
            "wine-extension-jpg.desktop",
            "photo.jpg",
            JPEG,
            "viewer",
            " %f",
            "Wine",
        ),
        case(
            "image/jpeg",
            "viewer.desktop",
            "photo.jpg",
            JPEG,
            "wine64",
            " start /unix %f",
            "Wine",
        ),
        case(
            "application/zip",
            "jarrunner.desktop",
            "bundle.zip",
            &zip(&["a.txt"]),
            "java",
            " -jar %f",
            "Java",
        ),
        case(
            "text/plain",
            "term.desktop",
            "notes.txt",
            b"notes\n",
            "xterm",
            " -e vim %F\nTerminal=true",
            "terminal",
        ),
        case(
            "text/plain",
            "shell.desktop",
            "notes.txt",
            b"notes\n",
            "bash",
            " %f\nTerminal=true",
            "interpreter",
        ),
        case(
            "text/plain",
            "py.desktop",
            "notes.txt",
            b"notes\n",
            "python3.11",
            " %f",
            "interpreter",
        ),
        case(
            "text/markdown",
            "term.desktop",
            "readme.md",
            b"# hi\n",
            "x-terminal-emulator",
            " -e less %f",
            "terminal",
        ),
    ];
    for c in cases {
        let t = Tree::new();
        let entry = format!(
            "[Desktop Entry]\nType=Application\nName=X\nExec=env A=1 {}{}\n",
            program(&t, c.program),
            c.rest
        );
        let d = desktop(&t, &[(c.mime, c.id, Some(&entry))]);
        let said = refused(&t.write(c.file, &c.content), &d);
        assert!(
            said.contains(c.why) && said.contains(c.id),
            "{}: {said}",
            c.id
        );
    }
}

#[test]
fn an_application_that_cannot_be_checked_is_refused() {
    // Named by the system's defaults list, but its entry is nowhere.
    let t = Tree::new();
    let d = desktop(&t, &[]);
    t.write(
        "desktop/data/applications/defaults.list",
        b"[Default Applications]\nimage/jpeg=gone.desktop\n",
    );
    let said = refused(&t.write("photo.jpg", JPEG), &d);
    assert!(
        said.contains("gone.desktop") && said.contains("cannot be found"),
        "{said}"
    );
}

#[test]
fn a_safe_default_application_lets_the_file_open() {
    let t = Tree::new();
    let eog = app(&format!("{} %U", program(&t, "eog")));
    let d = desktop(&t, &[("image/jpeg", "org.gnome.eog.desktop", Some(&eog))]);
    let p = t.write("photo.jpg", JPEG);
    assert_eq!(
        d.default_for("image/jpeg").unwrap(),
        ["org.gnome.eog.desktop"],
        "the system names it"
    );
    assert_eq!(open_as(&p, &d).unwrap(), p);
}

#[test]
fn an_entry_in_a_vendor_folder_is_found_and_vetted() {
    // `kde-viewer.desktop` may be `kde/viewer.desktop`.
    let t = Tree::new();
    let wine = app(&format!("{} %f", program(&t, "wine")));
    let d = desktop(&t, &[]);
    t.write(
        "desktop/data/applications/kde/viewer.desktop",
        wine.as_bytes(),
    );
    t.write(
        "desktop/config/mimeapps.list",
        b"[Default Applications]\nimage/jpeg=kde-viewer.desktop\n",
    );
    let said = refused(&t.write("photo.jpg", JPEG), &d);
    assert!(said.contains("Wine"), "found in its vendor folder: {said}");
}

#[test]
fn the_type_the_system_reads_from_the_content_is_vetted_too() {
    // The name says text/plain, whose application is safe; the content reads
    // as JSON to `file`, as xdg-open would see it, and JSON's runs scripts.
    let t = Tree::new();
    let d = desktop(
        &t,
        &[
            (
                "text/plain",
                "editor.desktop",
                Some(&app(&format!("{} %U", program(&t, "gedit")))),
            ),
            (
                "application/json",
                "runner.desktop",
                Some(&app(&format!("{} %f", program(&t, "node")))),
            ),
        ],
    );
    let plain = t.write("plain.txt", b"just words\n");
    assert!(
        open_as(&plain, &d).is_ok(),
        "text/plain's application is safe"
    );
    let json = t.write("data.txt", b"{\"a\": 1}\n");
    let said = refused(&json, &d);
    assert!(
        said.contains("application/json") && said.contains("interpreter"),
        "{said}"
    );
}

#[test]
fn a_query_that_hangs_is_refused_not_waited_on_forever() {
    let t = Tree::new();
    let hang = t.write("hang", b"#!/bin/sh\nexec sleep 600\n");
    std::fs::set_permissions(&hang, std::fs::Permissions::from_mode(0o755)).unwrap();
    let d = desktop(&t, &[]).with_program(&hang);
    let said = refused(&t.write("photo.jpg", JPEG), &d);
    assert!(said.contains("too long"), "{said}");
}

#[test]
fn a_name_that_is_not_utf8_is_checked_and_returned_byte_for_byte() {
    let t = Tree::new();
    let none = desktop(&t, &[]);
    let bad = t.write(b"report\xff.pdf", b"%PDF-1.7\n");
    let twin = t.write("report\u{fffd}.pdf", b"%PDF-1.7\n");
    let got = open_as(&bad, &none).unwrap();
    assert_eq!(
        got.as_os_str().as_encoded_bytes(),
        bad.as_os_str().as_encoded_bytes(),
        "the exact bytes"
    );
    assert_ne!(got, twin, "not the lossy twin");
}

#[test]
fn a_link_opens_only_when_the_file_it_reaches_has_a_name_of_the_same_kind() {
    let t = Tree::new();
    let none = desktop(&t, &[]);
    t.write("real.jpg", JPEG);
    t.write("launcher.desktop", JPEG);
    t.write("other.png", JPEG);
    let good = t.symlink("real.jpg", "photo.jpg");
    assert_eq!(
        open_as(&good, &none).unwrap(),
        good,
        "the link's own path is opened"
    );
    for target in ["launcher.desktop", "other.png"] {
        let link = t.symlink(target, format!("to-{target}.jpg"));
        assert!(refused(&link, &none).contains("same kind"), "{target}");
    }
}

#[test]
fn ooxml_macros_are_found_by_their_content_type_whatever_the_part_is_called() {
    let t = Tree::new();
    let none = desktop(&t, &[]);
    let vba = r#"<Override PartName="/word/notes.xml" ContentType="application/vnd.ms-office.vbaProject"/>"#;
    let hidden = t.write("renamed.docx", &docx(vba, &["word/notes.xml"]));
    assert!(
        refused(&hidden, &none).contains("vbaproject"),
        "a VBA part under any name"
    );
    // A character reference is the same type to Office's XML parser.
    let escaped = r#"<Default Extension="dat" ContentType="application/vnd.ms-office.&#118;ba&#x50;roject"/>"#;
    assert!(refused(
        &t.write("escaped.docx", &docx(escaped, &["word/a.dat"])),
        &none
    )
    .contains("vbaproject"));
    let main = r#"<Override PartName="/word/x.xml" ContentType="application/vnd.ms-word.document.macroEnabled.main+xml"/>"#;
    assert!(refused(&t.write("main.docx", &docx(main, &[])), &none).contains("macroenabled"));
    let activex = r#"<Override PartName="/word/activeX/a.xml" ContentType="application/vnd.ms-office.activeX+xml"/>"#;
    assert!(refused(&t.write("activex.docx", &docx(activex, &[])), &none).contains("activex"));
    let bare = zip_with(&[("_rels/.rels", b"", true), ("word/document.xml", b"", true)]);
    assert!(
        refused(&t.write("bare.docx", &bare), &none).contains("[Content_Types].xml"),
        "nothing to check is not a pass"
    );
    let clean = t.write("clean.docx", &docx(r#"<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>"#, &[]));
    assert_eq!(
        open_as(&clean, &none).unwrap(),
        clean,
        "a document without macros opens"
    );
}

#[test]
fn a_text_file_the_system_reads_as_postscript_html_or_svg_is_refused() {
    // Text to Canopy's check, but `file` (what xdg-mime asks in a generic
    // desktop, and xdg-open goes by) reads each as a program or a web page;
    // the applications named for plain text are safe.
    let t = Tree::new();
    let d = desktop(
        &t,
        &[(
            "text/plain",
            "editor.desktop",
            Some(&app(&format!("{} %U", program(&t, "gedit")))),
        )],
    );
    let cases: &[(&str, &[u8], &str)] = &[
        ("notes.txt", b"%!PS-Adobe-3.0\n/Times-Roman findfont 12 scalefont setfont\nshowpage\n", "application/postscript"),
        ("figure.txt", b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\n", "application/postscript"),
        ("notes.md", b"hello\n<script>alert(document.cookie)</script>\n", "text/html"),
        ("page.txt", b"<!-- c -->\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><body/></html>\n", "text/html"),
        (
            "drawing.txt",
            b"<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n<svg xmlns=\"http://www.w3.org/2000/svg\" onload=\"alert(1)\"/>\n",
            "image/svg+xml",
        ),
        ("letter.txt", b"{\\rtf1\\ansi hello}\n", "text/rtf"),
    ];
    for (name, content, mime) in cases {
        let said = refused(&t.write(name, content), &d);
        assert!(
            said.contains(mime),
            "{name} must be refused as {mime}: {said}"
        );
    }
    let plain = t.write("plain.txt", b"just words, and %!PS later on the line\n");
    assert_eq!(
        open_as(&plain, &d).unwrap(),
        plain,
        "plain text still opens"
    );
}

#[test]
fn a_file_the_system_reads_as_another_family_is_refused() {
    // A Word document with macros named .zip: the zip row forbids only a Java
    // manifest, and xdg-open would hand it to Word.
    let t = Tree::new();
    let none = desktop(&t, &[]);
    let said = refused(
        &t.write("photos.zip", &docx("", &["word/vbaProject.bin"])),
        &none,
    );
    assert!(
        said.contains("wordprocessingml") && said.contains("not an archive"),
        "{said}"
    );
    assert!(
        refused(&t.write("empty.txt", b""), &none).contains("inode/x-empty"),
        "an empty file has no type of its family"
    );
}

#[test]
fn without_xdg_mime_open_refuses_and_says_why() {
    let t = Tree::new();
    let d = desktop(&t, &[]).with_program(t.at("no-such-xdg-mime"));
    let said = refused(&t.write("photo.jpg", JPEG), &d);
    assert!(
        said.contains("xdg-mime") && said.contains("xdg-utils"),
        "{said}"
    );
}

#[test]
fn a_terminal_editor_chosen_for_text_opens_it() {
    // vim.desktop as Debian ships it: Terminal=true, and vim runs nothing of the file.
    let t = Tree::new();
    let vim = format!(
        "[Desktop Entry]\nType=Application\nName=Vim\nTryExec=vim\nExec={} %F\nTerminal=true\n",
        program(&t, "vim")
    );
    let d = desktop(&t, &[("text/plain", "vim.desktop", Some(&vim))]);
    let p = t.write("notes.txt", b"notes\n");
    assert_eq!(open_as(&p, &d).unwrap(), p);
}
