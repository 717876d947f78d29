//! Each command called as the window calls it: through Tauri's IPC layer
//! (invoke key, the capability's ACL, argument parsing, the handler, the
//! reply's serialization) on the mock runtime, from the `main` window built
//! as the app builds it, with the app's own compiled-in configuration and
//! capabilities. Once with a well-formed request, once with a malformed one.
//!
//! What cannot run headless: `reveal`, `copy_path` and `pick_folder` reach a
//! file manager, the clipboard and a native dialog. In the `e2e` build (the
//! one `scripts/test` tests) their seams record the action instead, so they
//! are called for real there; without it their well-formed call is left
//! out. `open_default` would start an application: its well-formed call
//! asks for a script, which the policy refuses before anything starts.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use canopy_core::names::encode_handle;
use serde_json::{json, Value};
use tauri::ipc::{CallbackFn, InvokeBody, InvokeResponseBody};
use tauri::test::{get_ipc_response, mock_builder, MockRuntime, INVOKE_KEY};
use tauri::webview::InvokeRequest;
use tauri::{App, Manager, WebviewWindow};
use tempfile::TempDir;

use crate::COMMANDS;

/// The smallest PNG header `read_image` takes for one (it sniffs magic bytes).
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
const NOTES: &str = "hello canopy\n";

/// What `sub/site.zip` holds, and its comment.
const ZIPPED: &[(&str, &str)] = &[
    ("readme.txt", "hello from inside\n"),
    ("assets/logo.txt", "logo\n"),
];
const ZIP_COMMENT: &str = "made for the shell's tests";

/// The app on the mock runtime with its `main` window, over a folder of a
/// text file, an image, a script and a subfolder holding a zip.
const TINY_WEBM: &[u8] = include_bytes!("tiny.webm");
/// A 32 x 16 RGB TIFF (uncompressed strips), a gradient written byte by byte.
const TINY_TIFF: &[u8] = include_bytes!("tiny.tif");
/// Debian's DejaVu Sans (fonts-dejavu-core, which fontconfig depends on).
const DEJAVU: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

pub(super) struct Fixture {
    dir: TempDir,
    /// Beside `dir`, not in it (the listing and sizes cases count `dir`):
    /// `tiny.webm`, 64 x 48, two VP8 frames of ffmpeg's testsrc (2 KB),
    /// `tiny.tif` and `DejaVuSans.ttf`.
    videos: TempDir,
    _app: App<MockRuntime>,
    window: WebviewWindow<MockRuntime>,
    /// What was sent over channels the page gave (its id, the message's JSON), in order.
    sent: Arc<Mutex<Vec<(u32, String)>>>,
}

impl Fixture {
    fn new() -> Fixture {
        Fixture::over(canopy_core::LocalFs::new())
    }

    /// The app listing from `source` (the local filesystem, maybe with test
    /// seams), and the archives in it, as the app does.
    fn over(source: canopy_core::LocalFs) -> Fixture {
        Fixture::with(source, None)
    }

    /// As [`Fixture::over`], reaching servers with `servers` (a test's own
    /// `sshd` and `ssh_config`, see `remote.rs`).
    pub(super) fn with(
        source: canopy_core::LocalFs,
        ssh: Option<canopy_sftp::SshOptions>,
    ) -> Fixture {
        record_actions_instead();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("notes.txt"), NOTES).unwrap();
        std::fs::write(dir.path().join("tiny.png"), PNG).unwrap();
        std::fs::write(dir.path().join("run.sh"), "#!/bin/sh\necho hi\n").unwrap();
        let videos = tempfile::tempdir().unwrap();
        std::fs::write(videos.path().join("tiny.webm"), TINY_WEBM).unwrap();
        std::fs::write(videos.path().join("tiny.tif"), TINY_TIFF).unwrap();
        std::fs::copy(DEJAVU, videos.path().join("DejaVuSans.ttf"))
            .expect("these tests need fonts-dejavu-core (fontconfig's own font)");
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(
            dir.path().join("sub/site.zip"),
            stored_zip(ZIPPED, ZIP_COMMENT),
        )
        .unwrap();
        let args = [OsString::from("canopy"), dir.path().as_os_str().to_owned()];
        let launch = canopy_core::startup::launch(&args, Default::default());
        // The commands as `configure` installs them, without the single-instance
        // plugin (it would hand this process over to a running Canopy), the
        // signal handlers, or a state file.
        let mut state = Arc::into_inner(crate::app_state(launch, None, None))
            .expect("nothing else holds the new state");
        state.places = canopy_places::standard(canopy_places::Reach {
            local: source,
            ssh: ssh.unwrap_or_else(|| crate::ssh_options(state.askpass.clone())),
        });
        let sent = Arc::new(Mutex::new(Vec::new()));
        let heard = Arc::clone(&sent);
        let app = crate::with_commands(mock_builder(), Arc::new(state))
            .channel_interceptor(move |_, channel, _, body| {
                if let InvokeResponseBody::Json(text) = body {
                    heard.lock().unwrap().push((channel.0, text.clone()));
                }
                true
            })
            .build(crate::context())
            .expect("the app builds on the mock runtime");
        crate::window::open_main(app.handle()).expect("the main window opens on the mock runtime");
        let window = app.get_webview_window(crate::window::MAIN).unwrap();
        Fixture {
            dir,
            videos,
            _app: app,
            window,
            sent,
        }
    }

    /// The messages sent over the page's channel `id` so far.
    fn sent_to(&self, id: u32) -> Vec<Value> {
        let sent = self.sent.lock().unwrap();
        sent.iter()
            .filter(|(to, _)| *to == id)
            .map(|(_, text)| serde_json::from_str(text).unwrap())
            .collect()
    }

    fn folder(&self) -> String {
        encode_handle(self.dir.path())
    }

    fn handle(&self, name: &str) -> String {
        encode_handle(&self.dir.path().join(name))
    }

    /// The handle of `name` beside `dir` (`tiny.tif`, `DejaVuSans.ttf`).
    fn beside(&self, name: &str) -> String {
        encode_handle(&self.videos.path().join(name))
    }

    /// The handle of `tiny.webm`.
    fn video(&self) -> String {
        encode_handle(&self.videos.path().join("tiny.webm"))
    }

    /// Invokes `command` with `args` (the `invoke` call's second argument)
    /// from the app's own page.
    pub(super) fn invoke(&self, command: &str, args: Value) -> Result<InvokeResponseBody, Value> {
        self.invoke_from(command, args, "tauri://localhost")
    }

    fn invoke_from(
        &self,
        command: &str,
        args: Value,
        page: &str,
    ) -> Result<InvokeResponseBody, Value> {
        invoke_on(&self.window, command, args, page)
    }
}

/// Invokes `command` with `args` from `page` in `window` (from any thread).
fn invoke_on(
    window: &WebviewWindow<MockRuntime>,
    command: &str,
    args: Value,
    page: &str,
) -> Result<InvokeResponseBody, Value> {
    get_ipc_response(
        window,
        InvokeRequest {
            cmd: command.into(),
            callback: CallbackFn(0),
            error: CallbackFn(1),
            url: page.parse().unwrap(),
            body: InvokeBody::Json(args),
            headers: Default::default(),
            invoke_key: INVOKE_KEY.to_string(),
        },
    )
}

/// A zip of `files` (name, text), stored uncompressed, with `comment`: the
/// smallest archive the engine opens, written here so the test needs no
/// archiver.
pub(super) fn stored_zip(files: &[(&str, &str)], comment: &str) -> Vec<u8> {
    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xEDB8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }
    let (mut out, mut central) = (Vec::new(), Vec::new());
    for (name, text) in files {
        let (name, data) = (name.as_bytes(), text.as_bytes());
        let offset = out.len() as u32;
        let (crc, len, name_len) = (crc32(data), data.len() as u32, name.len() as u16);
        // Local header: signature, version 2.0, no flags, stored, 1980-01-01 00:00.
        out.extend(0x0403_4b50u32.to_le_bytes());
        out.extend([20, 0, 0, 0, 0, 0, 0, 0, 0x21, 0]);
        out.extend(crc.to_le_bytes());
        out.extend(len.to_le_bytes());
        out.extend(len.to_le_bytes());
        out.extend(name_len.to_le_bytes());
        out.extend(0u16.to_le_bytes());
        out.extend(name);
        out.extend(data);
        // Its central directory record.
        central.extend(0x0201_4b50u32.to_le_bytes());
        central.extend([20, 3, 20, 0, 0, 0, 0, 0, 0, 0, 0x21, 0]);
        central.extend(crc.to_le_bytes());
        central.extend(len.to_le_bytes());
        central.extend(len.to_le_bytes());
        central.extend(name_len.to_le_bytes());
        central.extend([0; 12]);
        central.extend(offset.to_le_bytes());
        central.extend(name);
    }
    let (at, size, count) = (out.len() as u32, central.len() as u32, files.len() as u16);
    out.extend(central);
    out.extend(0x0605_4b50u32.to_le_bytes());
    out.extend([0; 4]);
    out.extend(count.to_le_bytes());
    out.extend(count.to_le_bytes());
    out.extend(size.to_le_bytes());
    out.extend(at.to_le_bytes());
    out.extend((comment.len() as u16).to_le_bytes());
    out.extend(comment.as_bytes());
    out
}

/// Where the `e2e` build's seams write what they would have done.
fn action_log() -> PathBuf {
    std::env::temp_dir().join(format!("canopy-ipc-test-{}.log", std::process::id()))
}

/// Points the `e2e` build's seams at [`action_log`] and at a canned folder
/// for the picker, before any command runs (once per process: tests run on
/// threads of one process).
fn record_actions_instead() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        std::env::set_var("CANOPY_TEST_ACTION_LOG", action_log());
        std::env::set_var("CANOPY_TEST_PICK_FOLDER", picked_folder());
        // "Bookmark this folder" writes the GTK bookmarks there, never the user's.
        std::env::set_var("XDG_CONFIG_HOME", config_home());
    });
}

/// The config folder the commands see (its GTK bookmarks file).
fn config_home() -> PathBuf {
    std::env::temp_dir().join(format!("canopy-ipc-config-{}", std::process::id()))
}

fn picked_folder() -> PathBuf {
    std::env::temp_dir()
}

/// The lines of the action log that name `path`.
pub(super) fn recorded(path: &Path) -> Vec<String> {
    let log = std::fs::read(action_log()).unwrap_or_default();
    let path = path.as_os_str().as_encoded_bytes();
    log.split(|&b| b == b'\n')
        .filter(|line| line.ends_with(path))
        .map(|line| String::from_utf8_lossy(line).into_owned())
        .collect()
}

/// A JSON reply's body.
pub(super) fn json(reply: InvokeResponseBody) -> Value {
    match reply {
        InvokeResponseBody::Json(text) => serde_json::from_str(&text).unwrap(),
        InvokeResponseBody::Raw(bytes) => panic!("expected JSON, got {} raw bytes", bytes.len()),
    }
}

/// How a malformed request must be refused.
enum Refusal {
    /// A Canopy error with this code.
    Code(&'static str),
    /// By Tauri before the handler runs (a plain string, the UI's `IO`):
    /// an argument of Tauri's own type is missing.
    Tauri,
}

type Reply = Result<InvokeResponseBody, Value>;

/// What a well-formed request's reply must show.
type Check = fn(&Fixture, Reply);

/// One command's calls.
struct Case {
    command: &'static str,
    /// A well-formed request and what its reply must show; `None` where it
    /// cannot run here (see the module's comment).
    valid: Option<(Value, Check)>,
    /// A malformed request and its refusal; `None` for a command that takes
    /// no argument, so has none to get wrong.
    invalid: Option<(Value, Refusal)>,
}

/// Whether the seams that record file actions are built in.
const SEAMS: bool = cfg!(feature = "e2e");

fn cases(f: &Fixture) -> Vec<Case> {
    vec![
        Case {
            command: "list_directory",
            valid: Some((
                json!({ "request": { "requestId": 1, "root": { "handle": f.folder() } } }),
                |f, reply| {
                    let listing = json(reply.expect("a folder lists"));
                    assert_eq!(listing["requestId"], 1, "the reply answers the request");
                    assert_eq!(listing["path"], f.dir.path().to_str().unwrap());
                    let names: Vec<&str> = listing["root"]["folder"]["entries"]
                        .as_array()
                        .expect("the root holds its entries")
                        .iter()
                        .map(|e| e["name"].as_str().unwrap())
                        .collect();
                    assert_eq!(
                        names,
                        ["sub", "notes.txt", "run.sh", "tiny.png"],
                        "folders first, then by name"
                    );
                },
            )),
            invalid: Some((
                json!({ "request": { "requestId": 1 } }),
                Refusal::Code("INVALID_ARGUMENT"),
            )),
        },
        Case {
            command: "cancel_listing",
            valid: Some((json!({ "request": { "requestId": 7 } }), |_, reply| {
                assert_eq!(json(reply.unwrap()), false, "no listing 7 is in flight");
            })),
            invalid: Some((
                json!({ "request": { "requestId": "seven" } }),
                Refusal::Code("INVALID_ARGUMENT"),
            )),
        },
        Case {
            command: "folder_sizes",
            valid: Some((
                json!({ "request": { "requestId": 2, "root": { "handle": f.folder() }, "depth": 1 } }),
                |f, reply| {
                    let report = json(reply.expect("a folder's size is counted"));
                    assert_eq!(report["requestId"], 2, "the reply answers the request");
                    let root = &report["root"];
                    assert_eq!(
                        root["handle"],
                        f.folder(),
                        "the root's handle as a listing gives it"
                    );
                    assert_eq!(root["done"], true);
                    assert_eq!(
                        root["sizes"]["files"], 4,
                        "notes.txt, tiny.png, run.sh, sub/site.zip: {root}"
                    );
                    assert_eq!(root["sizes"]["folders"], 1, "sub: {root}");
                    assert_eq!(root["sizes"]["isLowerBound"], false);
                    let folders = report["folders"].as_array().expect("the folders below");
                    assert_eq!(folders.len(), 1, "depth 1: sub alone: {report}");
                    assert_eq!(folders[0]["handle"], f.handle("sub"));
                    let largest = root["largest"]
                        .as_array()
                        .expect("the root's largest children");
                    assert_eq!(largest.len(), 4, "every child of the root: {root}");
                },
            )),
            invalid: Some((
                json!({ "request": { "requestId": 2, "root": { "handle": f.folder() }, "depth": 99 } }),
                Refusal::Code("INVALID_ARGUMENT"),
            )),
        },
        Case {
            command: "locate",
            valid: Some((
                json!({ "request": { "folder": f.folder(), "prefix": "ru" } }),
                |_, reply| {
                    let located = json(reply.unwrap());
                    assert_eq!(
                        located,
                        json!({ "index": 2, "matched": true, "total": 4 }),
                        "run.sh is third, after sub and notes.txt"
                    );
                },
            )),
            invalid: Some((
                json!({ "request": { "folder": f.folder(), "prefix": "ru", "unknown": 1 } }),
                Refusal::Code("INVALID_ARGUMENT"),
            )),
        },
        Case {
            command: "startup_target",
            valid: Some((json!({}), |f, reply| {
                let launch = json(reply.unwrap());
                assert_eq!(
                    launch["startup"]["folder"],
                    json!({ "handle": f.folder() }),
                    "started on the fixture"
                );
            })),
            invalid: None,
        },
        Case {
            command: "read_preview",
            valid: Some((
                json!({ "request": { "handle": f.handle("notes.txt"), "offset": 0, "length": 100 } }),
                |_, reply| {
                    let chunk = json(reply.unwrap());
                    assert_eq!(
                        chunk["length"],
                        NOTES.len(),
                        "the whole file, which is shorter than asked"
                    );
                    assert_eq!(chunk["more"], false);
                    assert!(
                        chunk["content"].to_string().contains("hello canopy"),
                        "the text is in the chunk: {chunk}"
                    );
                },
            )),
            invalid: Some((
                json!({ "request": { "handle": f.handle("notes.txt"), "offset": -1, "length": 100 } }),
                Refusal::Code("INVALID_ARGUMENT"),
            )),
        },
        Case {
            command: "read_image",
            valid: Some((
                json!({ "request": { "handle": f.handle("tiny.png") } }),
                |_, reply| match reply.unwrap() {
                    InvokeResponseBody::Raw(bytes) => {
                        assert_eq!(bytes, PNG, "the image's bytes, raw (no base64)")
                    }
                    InvokeResponseBody::Json(text) => panic!("expected raw bytes, got JSON {text}"),
                },
            )),
            invalid: Some((json!({ "request": {} }), Refusal::Code("INVALID_ARGUMENT"))),
        },
        Case {
            command: "archive_summary",
            valid: Some((
                json!({ "request": { "handle": f.handle("sub/site.zip") } }),
                |f, reply| {
                    let summary = json(reply.expect("a zip has a summary"));
                    let size = std::fs::metadata(f.dir.path().join("sub/site.zip"))
                        .unwrap()
                        .len();
                    assert_eq!(summary["format"], "zip");
                    assert_eq!(summary["files"], ZIPPED.len(), "{summary}");
                    assert_eq!(summary["archiveSize"], size, "the zip file's own size");
                    assert_eq!(summary["comment"], ZIP_COMMENT);
                    assert_eq!(summary["unsafeNames"], 0);
                },
            )),
            invalid: Some((
                json!({ "request": { "handle": 5 } }),
                Refusal::Code("INVALID_ARGUMENT"),
            )),
        },
        Case {
            command: "pdf_document",
            // Rendered for real by core/tests/media.rs and tests/e2e/media.test.mjs.
            valid: None,
            invalid: Some((
                json!({ "request": { "page": 1 } }),
                Refusal::Code("INVALID_ARGUMENT"),
            )),
        },
        Case {
            command: "pdf_page",
            // Rendered for real by core/tests/media.rs and tests/e2e/media.test.mjs.
            valid: None,
            invalid: Some((
                json!({ "request": { "page": 1 } }),
                Refusal::Code("INVALID_ARGUMENT"),
            )),
        },
        Case {
            command: "photo_details",
            // Rendered for real by core/tests/media.rs and tests/e2e/media.test.mjs.
            valid: None,
            invalid: Some((
                json!({ "request": { "page": 1 } }),
                Refusal::Code("INVALID_ARGUMENT"),
            )),
        },
        Case {
            command: "audio_details",
            // Rendered for real by core/tests/media.rs and tests/e2e/media.test.mjs.
            valid: None,
            invalid: Some((
                json!({ "request": { "page": 1 } }),
                Refusal::Code("INVALID_ARGUMENT"),
            )),
        },
        Case {
            command: "video_details",
            // ffprobe in the sandbox; many containers in core/tests/video.rs.
            valid: Some((
                json!({ "request": { "handle": f.video(), "requestId": 9 } }),
                |_, reply| {
                    let d = json(reply.expect("a WebM has details"));
                    assert_eq!(d["container"], "WebM", "{d}");
                    assert_eq!(
                        (d["width"].as_u64(), d["height"].as_u64()),
                        (Some(64), Some(48))
                    );
                    assert_eq!(d["videoCodec"], "VP8", "{d}");
                    assert_eq!(d["playMime"], "video/webm; codecs=\"vp8\"");
                },
            )),
            invalid: Some((
                json!({ "request": { "page": 1 } }),
                Refusal::Code("INVALID_ARGUMENT"),
            )),
        },
        Case {
            command: "video_poster",
            valid: Some((
                json!({ "request": { "handle": f.video(), "width": 64, "requestId": 10 } }),
                |_, reply| {
                    let p = json(reply.expect("a WebM has a poster frame"));
                    assert_eq!(
                        (p["width"].as_u64(), p["height"].as_u64()),
                        (Some(64), Some(48)),
                        "{p}"
                    );
                    assert!(
                        p["pngBase64"]
                            .as_str()
                            .is_some_and(|b| b.starts_with("iVBORw0KGgo")),
                        "a PNG"
                    );
                },
            )),
            invalid: Some((
                json!({ "request": { "handle": 5 } }),
                Refusal::Code("INVALID_ARGUMENT"),
            )),
        },
        Case {
            command: "photo_render",
            // vips in the sandbox; TIFF, HEIF and AVIF in core/tests/photo_render.rs.
            valid: Some((
                json!({ "request": { "handle": f.beside("tiny.tif"), "width": 64, "requestId": 11 } }),
                |_, reply| {
                    let p = json(reply.expect("a TIFF is drawn"));
                    assert_eq!(p["format"], "TIFF", "{p}");
                    assert_eq!(
                        (p["width"].as_u64(), p["height"].as_u64()),
                        (Some(32), Some(16)),
                        "never enlarged: {p}"
                    );
                    assert!(
                        p["pngBase64"]
                            .as_str()
                            .is_some_and(|b| b.starts_with("iVBORw0KGgo")),
                        "a PNG"
                    );
                },
            )),
            invalid: Some((
                json!({ "request": { "handle": f.video(), "width": 64 } }),
                Refusal::Code("UNSUPPORTED"),
            )),
        },
        Case {
            command: "font_preview",
            // fc-query and hb-view in the sandbox; more in core/tests/font.rs.
            valid: Some((
                json!({ "request": { "handle": f.beside("DejaVuSans.ttf"), "width": 400, "requestId": 12 } }),
                |_, reply| {
                    let p = json(reply.expect("a font is read"));
                    assert_eq!(p["family"], "DejaVu Sans", "{p}");
                    assert_eq!(p["container"], "TrueType");
                    assert_eq!(p["weight"], 400);
                    assert!(p["sampleError"].is_null(), "{p}");
                    assert!(
                        p["sample"]["pngBase64"]
                            .as_str()
                            .is_some_and(|b| b.starts_with("iVBORw0KGgo")),
                        "a PNG sample: {p}"
                    );
                },
            )),
            invalid: Some((
                json!({ "request": { "handle": f.beside("tiny.tif"), "width": 64 } }),
                Refusal::Code("UNSUPPORTED"),
            )),
        },
        Case {
            command: "open_media_stream",
            // Played for real by tests/e2e/media.test.mjs.
            valid: None,
            invalid: Some((json!({ "request": {} }), Refusal::Code("INVALID_ARGUMENT"))),
        },
        Case {
            command: "close_media_stream",
            valid: Some((json!({}), |_, reply| {
                assert_eq!(json(reply.unwrap()), Value::Null)
            })),
            invalid: None,
        },
        Case {
            command: "cancel_render",
            valid: Some((json!({ "request": { "requestId": 77 } }), |_, reply| {
                assert_eq!(
                    json(reply.unwrap()),
                    Value::Bool(false),
                    "no render job 77 to stop"
                )
            })),
            invalid: Some((json!({ "request": {} }), Refusal::Code("INVALID_ARGUMENT"))),
        },
        Case {
            command: "reveal",
            valid: SEAMS.then(|| {
                (
                    json!({ "request": { "handle": f.handle("notes.txt") } }),
                    (|f, reply| {
                        assert_eq!(json(reply.unwrap()), Value::Null);
                        let path = f.dir.path().join("notes.txt");
                        assert_eq!(recorded(&path), [format!("reveal {}", path.display())]);
                    }) as fn(&Fixture, Reply),
                )
            }),
            invalid: Some((
                json!({ "request": { "handle": 5 } }),
                Refusal::Code("INVALID_ARGUMENT"),
            )),
        },
        Case {
            command: "open_default",
            // Anything it may open would start an application: a script, which
            // the policy never hands over, shows the engine answered.
            valid: Some((
                json!({ "request": { "handle": f.handle("run.sh") } }),
                |_, reply| {
                    let refusal = reply.expect_err("a script is never opened");
                    assert_eq!(refusal["code"], "NOT_OPENABLE", "{refusal}");
                },
            )),
            invalid: Some((
                json!({ "request": null }),
                Refusal::Code("INVALID_ARGUMENT"),
            )),
        },
        Case {
            command: "copy_path",
            valid: SEAMS.then(|| {
                (
                    json!({ "request": { "handle": f.handle("tiny.png") } }),
                    (|f, reply| {
                        assert_eq!(
                            json(reply.unwrap()),
                            json!({ "quoted": false }),
                            "a plain path is copied as it is"
                        );
                        let path = f.dir.path().join("tiny.png");
                        assert_eq!(recorded(&path), [format!("copy {}", path.display())]);
                    }) as fn(&Fixture, Reply),
                )
            }),
            invalid: Some((
                json!({ "request": { "handle": "not base64!" } }),
                Refusal::Code("INVALID_ARGUMENT"),
            )),
        },
        Case {
            command: "pick_folder",
            valid: SEAMS.then(|| {
                (
                    json!({}),
                    (|_, reply| {
                        assert_eq!(
                            json(reply.unwrap()),
                            encode_handle(&picked_folder()),
                            "the canned folder"
                        );
                    }) as fn(&Fixture, Reply),
                )
            }),
            invalid: None,
        },
        Case {
            command: "watch_folders",
            valid: Some((
                json!({ "request": { "folders": [f.folder()] } }),
                |_, reply| {
                    let status = json(reply.unwrap());
                    assert_eq!(
                        status,
                        json!({ "watched": 1, "unwatched": [], "shortfall": null })
                    );
                },
            )),
            invalid: Some((
                json!({ "request": { "folders": f.folder() } }),
                Refusal::Code("INVALID_ARGUMENT"),
            )),
        },
        Case {
            command: "listen_shell",
            valid: Some((json!({ "channel": "__CHANNEL__:1" }), |_, reply| {
                assert_eq!(json(reply.unwrap()), Value::Null);
            })),
            invalid: Some((json!({}), Refusal::Tauri)),
        },
        Case {
            command: "remember_view",
            valid: Some((
                json!({ "request": {
                    "folder": f.folder(), "depth": 2, "showDotfiles": false, "expanded": [f.handle("sub")],
                    "selected": f.handle("notes.txt"), "sort": "name", "reverse": false, "hideIgnored": false,
                } }),
                |_, reply| assert_eq!(json(reply.unwrap()), Value::Null),
            )),
            invalid: Some((
                json!({ "request": { "folder": f.folder() } }),
                Refusal::Code("INVALID_ARGUMENT"),
            )),
        },
        Case {
            command: "server_state",
            // A server nothing has been asked of: known, not connected, and
            // never connected by asking (`remote.rs` connects to a real one).
            valid: Some((
                json!({ "request": { "handle": encode_handle(Path::new("sftp:/ann@files.example:2222/srv")) } }),
                |_, reply| {
                    assert_eq!(
                        json(reply.unwrap()),
                        json!({ "server": "ann@files.example:2222", "phase": "idle", "reconnects": 0 })
                    );
                },
            )),
            invalid: Some((
                json!({ "request": { "handle": f.folder() } }),
                Refusal::Code("INVALID_ARGUMENT"),
            )),
        },
        Case {
            command: "answer_secret",
            // No prompt is open: an answer to nothing is refused
            // (`a_password_prompt_reaches_the_page_and_its_answer_goes_back_once`
            // answers a real one).
            valid: None,
            invalid: Some((
                json!({ "request": { "id": 7, "secret": "hunter2" } }),
                Refusal::Code("INVALID_ARGUMENT"),
            )),
        },
        Case {
            command: "list_places",
            valid: Some((json!({}), |_, reply| {
                let places = json(reply.unwrap());
                assert_eq!(places["folders"][0]["kind"], "home", "Home comes first");
                assert_eq!(
                    places["mounts"][0]["kind"], "root",
                    "then the root filesystem"
                );
            })),
            invalid: None,
        },
        Case {
            command: "place_space",
            valid: Some((
                json!({ "request": { "mount": encode_handle(Path::new("/")) } }),
                |_, reply| {
                    let space = json(reply.unwrap());
                    let (free, total) = (
                        space["free"].as_u64().unwrap(),
                        space["total"].as_u64().unwrap(),
                    );
                    assert!(total > 0 && free <= total, "{space}");
                },
            )),
            invalid: Some((
                json!({ "request": { "mount": 7 } }),
                Refusal::Code("INVALID_ARGUMENT"),
            )),
        },
        Case {
            command: "add_bookmark",
            valid: Some((
                json!({ "request": { "handle": f.folder() } }),
                |f, reply| {
                    assert_eq!(json(reply.unwrap()), json!("added"));
                    let written = std::fs::read(config_home().join("gtk-3.0/bookmarks")).unwrap();
                    let line = format!("file://{}\n", f.dir.path().display());
                    assert!(
                        written.ends_with(line.as_bytes()),
                        "{}",
                        String::from_utf8_lossy(&written)
                    );
                },
            )),
            invalid: Some((
                json!({ "request": { "path": f.folder() } }),
                Refusal::Code("INVALID_ARGUMENT"),
            )),
        },
        Case {
            command: "transfer_offer",
            valid: Some((
                json!({ "request": { "handles": [f.handle("notes.txt")] } }),
                |f, reply| {
                    let uri = format!("file://{}/notes.txt", f.dir.path().display());
                    let offer = json(reply.unwrap());
                    assert_eq!(offer["uriList"], format!("{uri}\r\n"));
                    assert_eq!(offer["gnomeCopiedFiles"], format!("copy\n{uri}"));
                },
            )),
            invalid: Some((
                json!({ "request": { "handles": [] } }),
                Refusal::Code("INVALID_ARGUMENT"),
            )),
        },
        Case {
            command: "copy_files",
            valid: SEAMS.then(|| {
                (
                    json!({ "request": { "handles": [f.handle("notes.txt")] } }),
                    (|f, reply| {
                        assert_eq!(json(reply.unwrap())["uris"].as_array().unwrap().len(), 1);
                        let path = f.dir.path().join("notes.txt");
                        let line = format!("copy-files copy file://{}", path.display());
                        assert!(
                            recorded(&path).contains(&line),
                            "the offer was recorded, not put on a clipboard"
                        );
                    }) as Check,
                )
            }),
            invalid: Some((
                json!({ "request": { "handles": [f.handle("sub/site.zip/readme.txt")] } }),
                Refusal::Code("NOT_FOUND"),
            )),
        },
        Case {
            command: "thumbnail",
            // The fixture's PNG is a header only: it does not decode.
            valid: Some((
                json!({ "request": { "handle": f.handle("notes.txt") } }),
                |_, reply| {
                    assert_eq!(
                        reply.unwrap_err()["code"],
                        "UNSUPPORTED",
                        "a text file has no thumbnail"
                    );
                },
            )),
            invalid: Some((
                json!({ "request": { "handle": 5 } }),
                Refusal::Code("INVALID_ARGUMENT"),
            )),
        },
        Case {
            command: "find_below",
            valid: Some((
                json!({ "request": { "requestId": 12, "root": { "handle": f.folder() }, "text": "HELLO", "contents": true }, "progress": "__CHANNEL__:46" }),
                |f, reply| {
                    let report = json(reply.expect("a folder is searched"));
                    assert_eq!(report["counts"]["lines"], 1, "{report}");
                    assert_eq!(report["counts"]["files"], 1, "{report}");
                    let hits: Vec<Value> = f
                        .sent_to(46)
                        .iter()
                        .flat_map(|m| m["hits"].as_array().unwrap().clone())
                        .collect();
                    assert_eq!(hits.len(), 1, "the hits came over the channel: {hits:?}");
                    assert_eq!(hits[0]["handle"], f.handle("notes.txt"));
                    assert_eq!(hits[0]["line"]["number"], 1);
                    assert_eq!(
                        hits[0]["line"]["parts"],
                        json!([{ "text": "hello", "matched": true }, { "text": " canopy" }]),
                        "the match is marked, case ignored"
                    );
                },
            )),
            invalid: Some((
                json!({ "request": { "requestId": 12, "root": { "handle": f.folder() }, "text": " " }, "progress": "__CHANNEL__:46" }),
                Refusal::Code("INVALID_ARGUMENT"),
            )),
        },
        Case {
            command: "reveal_path",
            valid: Some((
                json!({ "request": { "root": f.folder(), "target": f.handle("sub/site.zip") } }),
                |f, reply| {
                    let way = json(reply.expect("the way down is found"));
                    assert_eq!(
                        way["steps"],
                        json!([
                            { "folder": f.folder(), "entry": f.handle("sub"), "index": 0, "total": 4 },
                            { "folder": f.handle("sub"), "entry": f.handle("sub/site.zip"), "index": 0, "total": 1 },
                        ])
                    );
                },
            )),
            invalid: Some((
                json!({ "request": { "root": f.handle("sub"), "target": f.handle("notes.txt") } }),
                Refusal::Code("INVALID_ARGUMENT"),
            )),
        },
    ]
}

#[test]
fn every_listed_command_has_a_case_here() {
    let f = Fixture::new();
    let covered: Vec<&str> = cases(&f).iter().map(|c| c.command).collect();
    assert_eq!(
        covered, COMMANDS,
        "one case per command, in the list's order"
    );
}

#[test]
fn every_command_answers_a_well_formed_request() {
    let f = Fixture::new();
    for case in cases(&f) {
        let Some((args, check)) = case.valid else {
            continue;
        };
        let reply = f.invoke(case.command, args);
        if let Err(refusal) = &reply {
            // Said before the case's own check, which may not expect a refusal.
            eprintln!("{} refused: {refusal}", case.command);
        }
        check(&f, reply);
    }
    let _ = std::fs::remove_file(action_log());
}

#[test]
fn every_command_refuses_a_malformed_request_with_its_code() {
    let f = Fixture::new();
    for case in cases(&f) {
        let Some((args, refusal)) = case.invalid else {
            continue;
        };
        let reply = f.invoke(case.command, args.clone());
        let Err(error) = reply else {
            panic!("{} accepted {args}", case.command)
        };
        match refusal {
            Refusal::Code(code) => assert_eq!(
                error["code"], code,
                "{} answered {error} to {args}",
                case.command
            ),
            Refusal::Tauri => assert!(
                error.is_string(),
                "{} answered {error} to {args}",
                case.command
            ),
        }
    }
}

#[test]
fn a_page_that_is_not_the_apps_can_call_no_command() {
    let f = Fixture::new();
    for command in COMMANDS {
        let reply = f.invoke_from(command, json!({}), "https://example.com/");
        let Err(error) = reply else {
            panic!("{command} answered a remote page")
        };
        assert!(
            error.as_str().is_some_and(|m| m.contains("not allowed")),
            "{command}: the ACL refuses: {error}"
        );
    }
}

#[test]
fn a_command_that_is_not_listed_is_refused() {
    let f = Fixture::new();
    let error = f
        .invoke("plugin:opener|open_path", json!({ "path": "/" }))
        .expect_err("no plugin is callable from the page");
    assert!(
        error.as_str().is_some_and(|m| m.contains("not allowed")),
        "the ACL refuses: {error}"
    );
}

#[test]
fn a_listing_with_a_progress_channel_answers_as_without_one() {
    let f = Fixture::new();
    let request = json!({ "requestId": 3, "root": { "handle": f.folder() } });
    let plain = json(
        f.invoke("list_directory", json!({ "request": request.clone() }))
            .expect("a folder lists"),
    );
    let watched = json(
        f.invoke(
            "list_directory",
            json!({ "request": request, "progress": "__CHANNEL__:41" }),
        )
        .expect("a folder lists with a channel"),
    );
    assert_eq!(watched, plain, "the channel changes nothing in the reply");
    for report in f.sent_to(41) {
        assert_eq!(
            report["requestId"], 3,
            "a report names its request: {report}"
        );
    }
    let refused = f.invoke("list_directory", json!({ "request": { "requestId": 3, "root": { "handle": f.folder() } }, "progress": "not a channel" }));
    assert!(refused.is_err(), "a malformed channel is refused");
}

#[test]
fn a_count_with_a_progress_channel_answers_as_without_one() {
    let f = Fixture::new();
    let request = json!({ "requestId": 5, "root": { "handle": f.folder() } });
    let plain = json(
        f.invoke("folder_sizes", json!({ "request": request.clone() }))
            .expect("a folder's size is counted"),
    );
    let watched = json(
        f.invoke(
            "folder_sizes",
            json!({ "request": request, "progress": "__CHANNEL__:43" }),
        )
        .expect("a folder's size is counted with a channel"),
    );
    let without_time = |mut v: Value| {
        v["elapsedMs"] = Value::Null;
        v
    };
    assert_eq!(
        without_time(watched),
        without_time(plain),
        "the channel changes nothing in the reply"
    );
    let reports = f.sent_to(43);
    assert!(
        reports.iter().any(|r| r["folders"]
            .as_array()
            .is_some_and(|fs| fs.iter().any(|x| x["done"] == true))),
        "each folder's finished figure is sent as soon as it is done: {reports:?}"
    );
    for report in &reports {
        assert_eq!(
            report["requestId"], 5,
            "a report names its request: {report}"
        );
    }
}

/// A count slowed by the `e2e` build's seam (`sub` is read in batches 300
/// ms apart) sends partial figures while it runs, and `cancel_listing`
/// stops it at once: what it answers says CANCELLED, and nothing is sent
/// after.
#[cfg(feature = "e2e")]
#[test]
fn a_slow_count_reports_lower_bounds_and_stops_when_cancelled() {
    use canopy_core::testing::IoHooks;
    let slowed = IoHooks {
        slow_folder: Some(b"sub".to_vec()),
        slow_delay: std::time::Duration::from_millis(300),
        ..IoHooks::default()
    };
    let f = Fixture::over(canopy_core::LocalFs::new().with_test_hooks(slowed));
    for i in 0..300 {
        std::fs::write(f.dir.path().join(format!("sub/f{i:03}")), "x").unwrap();
    }
    let args = json!({ "request": { "requestId": 11, "root": { "handle": f.folder() } }, "progress": "__CHANNEL__:44" });
    let started = std::time::Instant::now();
    let answer = {
        let window = f.window.clone();
        let count = std::thread::spawn(move || {
            invoke_on(&window, "folder_sizes", args, "tauri://localhost")
        });
        // Until a partial figure of the root arrives: the count is under way.
        while !f.sent_to(44).iter().any(|r| {
            r["folders"].as_array().is_some_and(|fs| {
                fs.iter()
                    .any(|x| x["handle"] == f.folder() && x["done"] == false)
            })
        }) {
            assert!(
                !count.is_finished(),
                "the count ended before any partial figure: {:?}",
                f.sent_to(44)
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let cancelled = json(
            f.invoke("cancel_listing", json!({ "request": { "requestId": 11 } }))
                .unwrap(),
        );
        assert_eq!(cancelled, true, "the count was in flight");
        count.join().unwrap()
    };
    // The engine answers a cancelled count with what it had counted, every
    // figure left unfinished a lower bound saying CANCELLED (or, stopped
    // before its first figure, with CANCELLED itself).
    match answer {
        Err(refusal) => assert_eq!(refusal["code"], "CANCELLED", "{refusal}"),
        Ok(reply) => {
            let report = json(reply);
            assert_eq!(report["budgetCut"], "CANCELLED", "{report}");
            assert_eq!(report["root"]["sizes"]["isLowerBound"], true, "{report}");
            assert_eq!(
                report["root"]["sizes"]["shortfalls"][0]["code"], "CANCELLED",
                "{report}"
            );
        }
    }
    let partial = f.sent_to(44);
    for report in &partial {
        for folder in report["folders"].as_array().unwrap() {
            if folder["done"] == false {
                assert_eq!(
                    folder["sizes"]["isLowerBound"], true,
                    "a partial figure is a lower bound: {folder}"
                );
            }
        }
    }
    std::thread::sleep(canopy_core::limits::SIZES_PROGRESS * 3);
    assert_eq!(
        f.sent_to(44).len(),
        partial.len(),
        "nothing is sent after the reply"
    );
    eprintln!("cancelled after {:?}", started.elapsed());
}

/// A listing slowed by the `e2e` build's seam (its subfolder `sub` is read
/// in batches 300 ms apart) reports how far it got while it runs, and
/// nothing once it answered.
#[cfg(feature = "e2e")]
#[test]
fn a_slow_listing_reports_progress_and_nothing_after_its_reply() {
    use canopy_core::testing::IoHooks;
    let slowed = IoHooks {
        slow_folder: Some(b"sub".to_vec()),
        slow_delay: std::time::Duration::from_millis(300),
        ..IoHooks::default()
    };
    let f = Fixture::over(canopy_core::LocalFs::new().with_test_hooks(slowed));
    let args = json!({ "request": { "requestId": 9, "root": { "handle": f.folder() } }, "progress": "__CHANNEL__:42" });
    json(
        f.invoke("list_directory", args)
            .expect("the slowed folder lists"),
    );
    let reports = f.sent_to(42);
    assert!(
        !reports.is_empty(),
        "a listing that takes 300 ms reports before it ends"
    );
    for report in &reports {
        assert_eq!(report["requestId"], 9, "{report}");
        assert!(
            report["folders"].as_u64() >= Some(1),
            "the root was read before the slow subfolder: {report}"
        );
        assert!(
            report["names"].as_u64() >= Some(4),
            "the root's four names are counted: {report}"
        );
    }
    assert!(
        reports.windows(2).all(|w| w[0] != w[1]),
        "a report is sent only when the counts changed: {reports:?}"
    );
    std::thread::sleep(canopy_core::limits::LIST_PROGRESS_INTERVAL * 3);
    assert_eq!(
        f.sent_to(42).len(),
        reports.len(),
        "nothing is sent after the reply"
    );
}

/// The window's source continues through archives: the zip in a folder is
/// an expandable file that says it is a zip, its path lists like a folder,
/// and a file inside it previews.
#[test]
fn a_zip_lists_like_a_folder_and_its_files_preview() {
    let f = Fixture::new();
    let list = |handle: String| {
        json(
            f.invoke(
                "list_directory",
                json!({ "request": { "requestId": 1, "root": { "handle": handle } } }),
            )
            .expect("it lists"),
        )
    };
    let sub = list(f.handle("sub"));
    let zip = &sub["root"]["folder"]["entries"][0];
    assert_eq!(zip["name"], "site.zip");
    assert_eq!(
        zip["archive"], "zip",
        "the entry says what archive it is: {zip}"
    );
    assert_eq!(zip["canExpand"], true, "an archive expands like a folder");
    let inside = list(f.handle("sub/site.zip"));
    let names: Vec<&str> = inside["root"]["folder"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["assets", "readme.txt"],
        "the zip's top, folders first"
    );
    let chunk = json(
        f.invoke(
            "read_preview",
            json!({ "request": { "handle": f.handle("sub/site.zip/readme.txt"), "offset": 0, "length": 100 } }),
        )
        .expect("a file inside the zip previews"),
    );
    assert!(
        chunk["content"].to_string().contains("hello from inside"),
        "the member's text: {chunk}"
    );
}

#[test]
fn the_summary_of_something_that_is_no_archive_is_refused() {
    let f = Fixture::new();
    for name in ["notes.txt", "sub/site.zip/readme.txt"] {
        let refusal = f
            .invoke(
                "archive_summary",
                json!({ "request": { "handle": f.handle(name) } }),
            )
            .expect_err("only an archive has a summary");
        assert!(
            refusal["code"].is_string(),
            "{name}: a Canopy error: {refusal}"
        );
    }
}

/// Live refresh watches real folders: one inside an archive is left out
/// quietly (no shortfall, not listed as unwatched: nothing to re-read on focus).
#[test]
fn a_folder_inside_an_archive_is_not_watched_and_says_nothing() {
    let f = Fixture::new();
    let status = json(
        f.invoke(
            "watch_folders",
            json!({ "request": { "folders": [f.folder(), f.handle("sub/site.zip"), f.handle("sub/site.zip/assets")] } }),
        )
        .expect("the watch is set"),
    );
    assert_eq!(
        status,
        json!({ "watched": 1, "unwatched": [], "shortfall": null }),
        "only the real folder is watched"
    );
}

/// `ssh`'s password prompt (sent by an askpass client, as `canopy` run by
/// `ssh` sends it) reaches the page as an `askSecret` event, its words
/// escaped as a name's; a page that listens again is shown it again;
/// `answer_secret` hands the secret to the client once, and a second
/// answer is refused.
#[test]
fn a_password_prompt_reaches_the_page_and_its_answer_goes_back_once() {
    let f = Fixture::new();
    f.invoke("listen_shell", json!({ "channel": "__CHANNEL__:61" }))
        .unwrap();
    let state = Arc::clone(&f._app.state::<Arc<crate::AppState>>());
    let askpass = state.askpass.clone().expect("the askpass is set up");
    let connect = askpass.begin("ann@files.example:2222");
    let env = askpass.env(connect);
    let client = canopy_sftp::askpass::Client::from(|name| {
        env.iter().find(|(k, _)| *k == name).map(|(_, v)| v.clone())
    })
    .expect("the variables name the socket");
    let asking = std::thread::spawn(move || {
        client
            .ask("", "(ann@files.example) Password\u{202e}:")
            .unwrap()
            .map(|s| s.to_string())
    });
    let wait_for = |channel: u32| {
        let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while f.sent_to(channel).is_empty() {
            assert!(std::time::Instant::now() < until, "the page was asked");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        f.sent_to(channel)
    };
    let shown = wait_for(61);
    let id = askpass.asking()[0].id;
    let event = json!({
        "type": "askSecret",
        "id": id,
        "server": "ann@files.example:2222",
        "prompt": "(ann@files.example) Password\u{202e}:",
        "promptParts": [{ "text": "(ann@files.example) Password" }, { "escape": "\\u{202e}" }, { "text": ":" }],
    });
    assert_eq!(shown, std::slice::from_ref(&event));
    // The page is reloaded: it listens on a new channel and is asked again.
    f.invoke("listen_shell", json!({ "channel": "__CHANNEL__:62" }))
        .unwrap();
    assert_eq!(wait_for(62), [event]);
    let answer = json!({ "request": { "id": id, "secret": "correct horse" } });
    assert_eq!(
        json(f.invoke("answer_secret", answer.clone()).unwrap()),
        Value::Null
    );
    assert_eq!(asking.join().unwrap().as_deref(), Some("correct horse"));
    let again = f.invoke("answer_secret", answer).unwrap_err();
    assert_eq!(again["code"], "INVALID_ARGUMENT", "{again}");
    askpass.end(connect);
}
