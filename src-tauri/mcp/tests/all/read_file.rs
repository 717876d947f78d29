//! `read_file` through the real binary: chunks that say which bytes they
//! show, binary as hex, sizes that read 0, and special files never opened.

use crate::common;

use std::fs;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use common::{path_arg, Reply, Server, Tree, BUDGET};
use serde_json::json;

async fn read(s: &Server, args: serde_json::Value) -> Reply {
    Reply::of(s.call("read_file", args).await)
}

#[tokio::test]
async fn a_text_file_is_read_in_chunks_that_say_which_bytes() {
    let t = Tree::new();
    let body: String = (0..20_000).map(|i| format!("line {i}\n")).collect();
    let f = t.write("big.txt", body.as_bytes());
    let size = body.len();
    let s = Server::start(&[&t.path()]).await;
    let first = read(&s, json!({ "path": path_arg(&f) })).await.ok();
    let header = first.lines()[0].to_string();
    assert_eq!(header, format!("[TEXT utf-8] showing bytes 0-32768 of {size}; call read_file with offset 32768 for more"));
    assert_eq!(
        &first.text[header.len()..header.len() + 2],
        "\n\n",
        "a blank line, then the content"
    );
    assert!(
        body.starts_with(&first.text[header.len() + 2..]),
        "the content is the file's start"
    );
    assert_eq!(first.structured["nextOffset"], json!(32768));
    let mut offset = 32768u64;
    let mut got = first.text[header.len() + 2..].to_string();
    while let Some(next) = {
        let r = read(&s, json!({ "path": path_arg(&f), "offset": offset }))
            .await
            .ok();
        let head = r.lines()[0].to_string();
        got.push_str(&r.text[head.len() + 2..]);
        r.structured["nextOffset"].as_u64()
    } {
        offset = next;
    }
    assert_eq!(got, body, "the chunks put together are the file");
    let clamped = read(&s, json!({ "path": path_arg(&f), "length": 1_000_000 }))
        .await
        .ok();
    assert!(
        clamped.lines()[0].contains("at most 32768 bytes are read per call"),
        "{}",
        clamped.lines()[0]
    );
    assert!(clamped.text.chars().count() <= BUDGET);
}

#[tokio::test]
async fn a_binary_file_is_a_hex_dump_and_an_empty_one_says_so() {
    let t = Tree::new();
    let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
    bytes.extend((0..10_000u32).map(|i| (i % 251) as u8));
    let f = t.write("pic.png", &bytes);
    let e = t.write("empty", b"");
    let s = Server::start(&[&t.path()]).await;
    let r = read(&s, json!({ "path": path_arg(&f) })).await.ok();
    let lines = r.lines();
    assert_eq!(lines[0], format!("[BINARY] showing bytes 0-4096 of {} as a hex dump (image/png); call read_file with offset 4096 for more", bytes.len()));
    assert_eq!(
        lines[2],
        "00000000  89 50 4e 47 0d 0a 1a 0a  00 01 02 03 04 05 06 07  |.PNG............|"
    );
    assert_eq!(lines.len(), 2 + 4096 / 16);
    let empty = read(&s, json!({ "path": path_arg(&e) })).await.ok();
    assert_eq!(
        empty.lines()[0],
        "[TEXT utf-8] showing bytes 0-0 of 0; end of file"
    );
}

#[tokio::test]
async fn a_file_whose_size_reads_0_is_of_unknown_size() {
    let s = Server::start(&[Path::new("/proc")]).await;
    let r = read(&s, json!({ "path": "/proc/self/status" })).await.ok();
    assert!(
        r.lines()[0].starts_with("[TEXT utf-8] showing bytes 0-"),
        "{}",
        r.lines()[0]
    );
    assert!(
        r.lines()[0].contains(" of unknown size"),
        "{}",
        r.lines()[0]
    );
    assert!(
        r.text.contains("Name:\tcanopy-mcp"),
        "the server's own status"
    );
    assert!(r.structured.get("size").is_none(), "no size is claimed");
}

/// A writer thread blocked in `open()` on a fifo until some reader opens it.
struct BlockedWriter {
    fifo: PathBuf,
    tid: libc::pid_t,
    released: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl BlockedWriter {
    fn on(fifo: &Path) -> Self {
        let released = Arc::new(AtomicBool::new(false));
        let (flag, path) = (released.clone(), fifo.to_path_buf());
        let (tx, rx) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            tx.send(unsafe { libc::gettid() }).unwrap();
            let _w = fs::OpenOptions::new().write(true).open(&path).unwrap();
            flag.store(true, Ordering::SeqCst);
        });
        let w = BlockedWriter {
            fifo: fifo.to_path_buf(),
            tid: rx.recv().unwrap(),
            released,
            thread: Some(thread),
        };
        // It gets there without help: the deadline only turns a broken fixture into a failure.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while !w.still_blocked() {
            assert!(
                std::time::Instant::now() < deadline,
                "the writer never blocked in open()"
            );
            std::thread::yield_now();
        }
        w
    }

    /// Asleep in `open()`, waiting for a reader (read from the kernel).
    fn still_blocked(&self) -> bool {
        fs::read_to_string(format!("/proc/self/task/{}/wchan", self.tid)).unwrap_or_default()
            == "wait_for_partner"
            && !self.released.load(Ordering::SeqCst)
    }
}

impl Drop for BlockedWriter {
    fn drop(&mut self) {
        let _r = fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&self.fifo);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_fifo_is_refused_with_its_token_and_never_opened() {
    let t = Tree::new();
    let fifo = t.fifo("pipe");
    t.link("to_pipe", "pipe");
    let writer = BlockedWriter::on(&fifo);
    let s = Server::start(&[&t.path()]).await;
    for path in [path_arg(&fifo), format!("{}/to_pipe", path_arg(&t.path()))] {
        let r = read(&s, json!({ "path": path })).await;
        assert_eq!(r.code(), "NOT_A_FILE", "{}", r.text);
        assert!(
            r.text.contains("[FIFO]"),
            "the refusal names the kind: {}",
            r.text
        );
        assert!(writer.still_blocked(), "the fifo was opened for reading");
    }
    let listed = s.list(json!({ "path": path_arg(&t.path()) })).await.ok();
    assert!(
        listed.lines().contains(&"[FIFO] pipe"),
        "a fifo is listed: {}",
        listed.text
    );
    assert!(writer.still_blocked(), "listing opened the fifo");
    let dev = read(&s, json!({ "path": "/dev/null" })).await;
    assert_eq!(dev.code(), "DENIED", "/dev is outside the root");
}

#[tokio::test]
async fn a_device_is_refused_with_its_token() {
    let s = Server::start(&[Path::new("/dev")]).await;
    let r = read(&s, json!({ "path": "/dev/null" })).await;
    assert_eq!(r.code(), "NOT_A_FILE");
    assert!(r.text.contains("[CHAR_DEVICE]"), "{}", r.text);
}

#[tokio::test]
async fn an_offset_no_file_can_have_is_an_invalid_argument() {
    let s = Server::start(&[Path::new("/proc")]).await;
    for offset in [1u64 << 63, u64::MAX] {
        let r = read(&s, json!({ "path": "/proc/self/status", "offset": offset })).await;
        assert_eq!(r.code(), "INVALID_ARGUMENT", "{offset}: {}", r.text);
        assert!(r.text.contains("offset"), "{}", r.text);
    }
    for bad in [json!(-1), json!("12"), json!(1.5)] {
        let r = read(&s, json!({ "path": "/proc/self/status", "offset": bad })).await;
        assert_eq!(r.code(), "INVALID_ARGUMENT", "{bad}: {}", r.text);
    }
}

#[tokio::test]
async fn the_structured_result_leaves_out_false_flags() {
    let t = Tree::new();
    t.write("a.txt", b"one\ntwo\nthree\n");
    let s = Server::start(&[&t.path()]).await;
    let r = read(&s, json!({"path": path_arg(&t.at("a.txt")), "head": 1}))
        .await
        .ok();
    let keys = |v: &serde_json::Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert!(
        !keys(&r.structured).contains(&"lossy".into()),
        "{}",
        r.structured
    );
    assert_eq!(
        keys(&r.structured["lines"]),
        ["first", "shown", "total"],
        "an agent pays for every false flag on every reply: {}",
        r.structured
    );
}
