//! The SFTP protocol reader (the vendored `openssh-sftp-client`, its
//! low-level reader, `openssh-sftp-protocol` and `ssh_format`) against
//! replies a seeded generator makes hostile: valid replies of every kind with
//! their lengths, counts and bytes mutated. Whatever a reply claims, a call
//! ends (with an error or a value), nothing panics, and no allocation is
//! larger than what the longest packet the reader takes can justify: every
//! length and count is checked against the bytes that carry it first.
//!
//! The server is in this process, on the other end of two pipes; this
//! binary's allocator records the largest allocation made while a case runs.
//! The seed of a run is printed on failure (`CANOPY_FUZZ_SEED=N` replays it).
use crate::common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use futures_util::StreamExt;
use openssh_sftp_client::{Sftp, SftpOptions, MAX_PACKET_LEN};
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};

/// The system's allocator, recording the largest allocation asked for while
/// `TRACKING` is set.
struct Recording;

static TRACKING: AtomicBool = AtomicBool::new(false);
static LARGEST: AtomicUsize = AtomicUsize::new(0);
/// The case running, for the message an allocation the system refuses
/// prints before the process aborts.
static CASE: AtomicU64 = AtomicU64::new(0);

impl Recording {
    fn saw(size: usize) {
        if TRACKING.load(Ordering::Relaxed) {
            LARGEST.fetch_max(size, Ordering::Relaxed);
        }
    }
}

unsafe impl GlobalAlloc for Recording {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        Recording::saw(layout.size());
        let p = unsafe { System.alloc(layout) };
        if p.is_null() {
            refused(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        Recording::saw(layout.size());
        let p = unsafe { System.alloc_zeroed(layout) };
        if p.is_null() {
            refused(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        Recording::saw(new_size);
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if p.is_null() {
            refused(new_size);
        }
        p
    }
}

/// Says which case made an allocation the system refused (the process
/// aborts next), without allocating.
fn refused(size: usize) {
    use std::io::Write;
    let mut text = [0u8; 160];
    let mut at = std::io::Cursor::new(&mut text[..]);
    let _ = write!(
        at,
        "\nan allocation of {size} bytes was refused in case {} (replay: CANOPY_FUZZ_SEED={})\n",
        CASE.load(Ordering::Relaxed) & 0xffff_ffff,
        CASE.load(Ordering::Relaxed) >> 32
    );
    let n = at.position() as usize;
    let _ = std::io::stderr().write_all(&text[..n]);
}

#[global_allocator]
static ALLOCATOR: Recording = Recording;

/// One test at a time: the allocator's record is the process's.
static SERIAL: Mutex<()> = Mutex::new(());

/// No allocation a reply can cause is larger than this: the reader holds
/// one packet at a time (at most `MAX_PACKET_LEN` bytes, its buffer at most
/// twice that), and a `NAME` reply's entries take at most about six times
/// their bytes on the wire.
const ALLOCATION_BOUND: usize = 8 * MAX_PACKET_LEN;

/// SplitMix64: small, seedable, good enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn seed() -> u64 {
    std::env::var("CANOPY_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                & 0xffff_ffff
        })
}

// The replies of SFTP v3 a client can get, as a correct server sends them.
const VERSION: u8 = 2;
const STATUS: u8 = 101;
const HANDLE: u8 = 102;
const DATA: u8 = 103;
const NAME: u8 = 104;
const ATTRS: u8 = 105;
const EXTENDED_REPLY: u8 = 201;

fn put_string(out: &mut Vec<u8>, s: &[u8]) {
    out.extend_from_slice(&(s.len() as u32).to_be_bytes());
    out.extend_from_slice(s);
}

/// Every attribute, and one extended pair.
fn attrs(out: &mut Vec<u8>, mode: u32) {
    out.extend_from_slice(&0x8000_000fu32.to_be_bytes());
    out.extend_from_slice(&1234u64.to_be_bytes());
    out.extend_from_slice(&[0, 0, 3, 232, 0, 0, 3, 232]);
    out.extend_from_slice(&mode.to_be_bytes());
    out.extend_from_slice(&[0x65, 0, 0, 0, 0x65, 0, 0, 0]);
    out.extend_from_slice(&1u32.to_be_bytes());
    put_string(out, b"name@example.com");
    put_string(out, b"value");
}

fn reply(kind: u8, id: u32, rest: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut body = vec![kind];
    if kind != VERSION {
        body.extend_from_slice(&id.to_be_bytes());
    }
    rest(&mut body);
    let mut out = (body.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(&body);
    out
}

fn names(id: u32, names: &[&[u8]]) -> Vec<u8> {
    reply(NAME, id, |b| {
        b.extend_from_slice(&(names.len() as u32).to_be_bytes());
        for n in names {
            put_string(b, n);
            put_string(b, b"-rw-r--r--    1 u g 1234 Jan  1 00:00 name");
            attrs(b, 0o100644);
        }
    })
}

fn status(id: u32, code: u32, message: &[u8]) -> Vec<u8> {
    reply(STATUS, id, |b| {
        b.extend_from_slice(&code.to_be_bytes());
        put_string(b, message);
        put_string(b, b"en");
    })
}

/// The correct reply to the request `kind` (with its `body` after the id),
/// for the fake tree: `/d` a folder of three names, `/f` a file of 100 bytes,
/// `/l` a link, `/missing` not there.
fn answer(kind: u8, id: u32, body: &[u8], readdirs: &mut u32) -> Vec<u8> {
    let path = body
        .get(4..)
        .and_then(|rest| rest.get(..u32::from_be_bytes(body[..4].try_into().ok()?) as usize));
    match kind {
        // EXTENDED: limits@openssh.com
        200 => reply(EXTENDED_REPLY, id, |b| {
            for v in [262_144u64, 261_120, 261_120, 0] {
                b.extend_from_slice(&v.to_be_bytes());
            }
        }),
        // OPEN, OPENDIR
        3 | 11 => reply(HANDLE, id, |b| put_string(b, b"h1")),
        // READ
        5 => reply(DATA, id, |b| put_string(b, &[b'x'; 100])),
        // LSTAT, FSTAT, STAT
        7 | 8 | 17 if path == Some(b"/missing") => status(id, 2, b"No such file or directory"),
        7 | 8 | 17 => reply(ATTRS, id, |b| attrs(b, 0o100644)),
        // READDIR: one NAME, then the end
        12 => {
            *readdirs += 1;
            if *readdirs == 1 {
                names(id, &[b"one", b"two", b"caf\xe9"])
            } else {
                status(id, 1, b"End of file")
            }
        }
        // REALPATH, READLINK
        16 | 19 => names(id, &[b"/d/target"]),
        // CLOSE and anything else
        _ => status(id, 0, b"Success"),
    }
}

fn hello() -> Vec<u8> {
    reply(VERSION, 0, |b| {
        b.extend_from_slice(&3u32.to_be_bytes());
        put_string(b, b"limits@openssh.com");
        put_string(b, b"1");
    })
}

/// Values that break a length or a count: none, tiny, the bounds, huge.
fn hostile_u32(rng: &mut Rng, frame_len: usize) -> u32 {
    let picks = [
        0,
        1,
        4,
        5,
        8,
        9,
        12,
        frame_len as u32,
        frame_len as u32 + 1,
        frame_len.saturating_sub(1) as u32,
        MAX_PACKET_LEN as u32,
        MAX_PACKET_LEN as u32 + 1,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_fff0,
        u32::MAX,
        rng.next() as u32,
    ];
    picks[rng.below(picks.len())]
}

/// One to three mutations of `frame`: a length, a count or any 4 bytes set
/// to a hostile value, bytes cut off, added or flipped.
fn mutate(frame: &mut Vec<u8>, rng: &mut Rng) {
    for _ in 0..1 + rng.below(3) {
        let len = frame.len();
        match rng.below(7) {
            // The packet's length.
            0 if len >= 4 => {
                let v = hostile_u32(rng, len);
                frame[..4].copy_from_slice(&v.to_be_bytes());
            }
            // What follows the id: a NAME's count, a HANDLE's, DATA's or
            // a STATUS's first length, an ATTRS' flags.
            1 if len >= 13 => {
                let v = hostile_u32(rng, len);
                frame[9..13].copy_from_slice(&v.to_be_bytes());
            }
            2 if len >= 4 => {
                let at = rng.below(len - 3);
                let v = hostile_u32(rng, len);
                frame[at..at + 4].copy_from_slice(&v.to_be_bytes());
            }
            3 if len > 0 => frame.truncate(rng.below(len)),
            4 => {
                for _ in 0..rng.below(64) {
                    frame.push(rng.next() as u8);
                }
            }
            5 if len > 0 => {
                let at = rng.below(len);
                frame[at] ^= 1 << rng.below(8);
            }
            _ if len > 4 => {
                // A length that says the rest of the frame is there.
                let v = (len - 4) as u32;
                frame[..4].copy_from_slice(&v.to_be_bytes());
            }
            _ => {}
        }
    }
}

/// The fake server: answers each request correctly, except the reply number
/// `hostile` (0 is the VERSION), which it mutates; after it the server
/// hangs up, so nothing waits for a reply that will not come.
async fn serve(mut from: DuplexStream, mut to: DuplexStream, hostile: usize, mut rng: Rng) {
    let mut sent = 0;
    let mut readdirs = 0;
    loop {
        let mut head = [0u8; 4];
        if from.read_exact(&mut head).await.is_err() {
            return;
        }
        let mut packet = vec![0; u32::from_be_bytes(head) as usize];
        if from.read_exact(&mut packet).await.is_err() || packet.is_empty() {
            return;
        }
        let mut out = if packet[0] == 1 {
            hello()
        } else if packet.len() >= 5 {
            let id = u32::from_be_bytes(packet[1..5].try_into().unwrap());
            answer(packet[0], id, &packet[5..], &mut readdirs)
        } else {
            return;
        };
        if sent == hostile {
            mutate(&mut out, &mut rng);
            let _ = to.write_all(&out).await;
            return;
        }
        if to.write_all(&out).await.is_err() {
            return;
        }
        sent += 1;
    }
}

/// What the client asks in a case.
#[derive(Debug, Clone, Copy)]
enum Ask {
    Stat,
    Missing,
    ReadDir,
    ReadLink,
    RealPath,
    Read,
}

const ASKS: [Ask; 6] = [
    Ask::Stat,
    Ask::Missing,
    Ask::ReadDir,
    Ask::ReadLink,
    Ask::RealPath,
    Ask::Read,
];

async fn ask(sftp: &Sftp, what: Ask) -> Result<(), openssh_sftp_client::Error> {
    let mut fs = sftp.fs();
    match what {
        Ask::Stat => fs.metadata(Path::new("/f")).await.map(drop),
        Ask::Missing => fs.metadata(Path::new("/missing")).await.map(drop),
        Ask::ReadDir => {
            let dir = fs.open_dir(Path::new("/d")).await?;
            let mut entries = std::pin::pin!(dir.read_dir());
            while let Some(entry) = entries.next().await {
                entry?;
            }
            Ok(())
        }
        Ask::ReadLink => fs.read_link(Path::new("/l")).await.map(drop),
        Ask::RealPath => fs.canonicalize(Path::new(".")).await.map(drop),
        Ask::Read => {
            let mut file = sftp.options().read(true).open(Path::new("/f")).await?;
            file.read(4096, bytes::BytesMut::new()).await.map(drop)
        }
    }
}

/// Runs one case: the session starts, `what` is asked, and the reply
/// number `hostile` is mutated by `rng`. Returns what went wrong, if
/// anything did.
fn case(what: Ask, hostile: usize, rng: Rng) -> Option<String> {
    let panics_before = PANICS.load(Ordering::SeqCst);
    LARGEST.store(0, Ordering::SeqCst);
    TRACKING.store(true, Ordering::SeqCst);
    // A panic on this thread (in the session's start) is a failed case too.
    let ended = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        runtime().block_on(async {
            let (client_out, server_in) = tokio::io::duplex(1 << 16);
            let (server_out, client_in) = tokio::io::duplex(1 << 16);
            let server = tokio::spawn(serve(server_in, server_out, hostile, rng));
            let asked = async {
                let options = SftpOptions::new().flush_interval(Duration::ZERO);
                if let Ok(sftp) = Sftp::new(client_out, client_in, options).await {
                    let _ = ask(&sftp, what).await;
                    drop(sftp);
                }
            };
            // A generous liveness bound: the server hangs up after the hostile
            // reply, so every call ends at once unless something spins or waits
            // for bytes that will never come.
            let ended = tokio::time::timeout(Duration::from_secs(20), asked)
                .await
                .is_ok();
            server.abort();
            ended
        })
    }))
    .unwrap_or(true);
    TRACKING.store(false, Ordering::SeqCst);
    let largest = LARGEST.load(Ordering::SeqCst);
    if !ended {
        return Some("the call never ended".into());
    }
    if PANICS.load(Ordering::SeqCst) != panics_before {
        return Some("a thread panicked".into());
    }
    (largest > ALLOCATION_BOUND)
        .then(|| format!("an allocation of {largest} bytes (the bound is {ALLOCATION_BOUND})"))
}

static PANICS: AtomicUsize = AtomicUsize::new(0);

fn count_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            PANICS.fetch_add(1, Ordering::SeqCst);
            default(info);
        }));
    });
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn every_reply_a_generator_makes_hostile_ends_its_call_without_a_large_allocation_or_a_panic() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    count_panics();
    let seed = seed();
    let mut rng = Rng(seed);
    let mut failures = Vec::new();
    const CASES: u64 = 20_000;
    for n in 0..CASES {
        let what = ASKS[rng.below(ASKS.len())];
        // The VERSION, the limits reply, then the ask's own replies (an open
        // and a read, or an opendir and readdirs, or one).
        let hostile = rng.below(5);
        let case_rng = Rng(rng.next());
        CASE.store((seed << 32) | n, Ordering::SeqCst);
        if let Some(why) = case(what, hostile, case_rng) {
            failures.push(format!(
                "case {n} ({what:?}, reply {hostile} mutated): {why}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {CASES} cases failed (replay: CANOPY_FUZZ_SEED={seed}):\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
}

/// How one session went when every reply of kind `kind` was `hostile`
/// (given the request's id): the call's outcome, the session's failure,
/// and the largest allocation made.
struct Outcome {
    call: Result<(), openssh_sftp_client::Error>,
    failure: Option<String>,
    largest: usize,
}

fn session(what: Ask, kind: u8, hostile: impl Fn(u32) -> Vec<u8> + Send + 'static) -> Outcome {
    count_panics();
    let panics_before = PANICS.load(Ordering::SeqCst);
    let outcome = runtime().block_on(async {
        let (client_out, mut server_in) = tokio::io::duplex(1 << 16);
        let (mut server_out, client_in) = tokio::io::duplex(1 << 16);
        let server = tokio::spawn(async move {
            let mut readdirs = 0;
            loop {
                let mut head = [0u8; 4];
                if server_in.read_exact(&mut head).await.is_err() {
                    return;
                }
                let mut packet = vec![0; u32::from_be_bytes(head) as usize];
                if server_in.read_exact(&mut packet).await.is_err() {
                    return;
                }
                let id = packet
                    .get(1..5)
                    .map_or(0, |b| u32::from_be_bytes(b.try_into().unwrap()));
                let out = match packet[0] {
                    1 => hello(),
                    k if k == kind => hostile(id),
                    k => answer(k, id, &packet[5..], &mut readdirs),
                };
                if server_out.write_all(&out).await.is_err() {
                    return;
                }
            }
        });
        LARGEST.store(0, Ordering::SeqCst);
        TRACKING.store(true, Ordering::SeqCst);
        let options = SftpOptions::new().flush_interval(Duration::ZERO);
        let sftp = Sftp::new(client_out, client_in, options)
            .await
            .expect("the session starts");
        let call = tokio::time::timeout(Duration::from_secs(20), ask(&sftp, what))
            .await
            .expect("the call ends");
        TRACKING.store(false, Ordering::SeqCst);
        server.abort();
        Outcome {
            call,
            failure: sftp.failure(),
            largest: LARGEST.load(Ordering::SeqCst),
        }
    });
    assert_eq!(
        PANICS.load(Ordering::SeqCst),
        panics_before,
        "nothing panicked"
    );
    outcome
}

#[test]
fn a_name_reply_claiming_4_billion_entries_is_refused_before_anything_is_allocated() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out = session(Ask::ReadDir, 12, |id| {
        let mut f = names(id, &[b"one"]);
        f[9..13].copy_from_slice(&u32::MAX.to_be_bytes());
        f
    });
    assert!(
        out.call.is_err(),
        "a reply that lies about its count is refused"
    );
    let failure = out.failure.expect("the session says why it failed");
    assert!(
        failure.contains("4294967295"),
        "the reason names the count the server claimed: {failure}"
    );
    assert!(
        out.largest <= ALLOCATION_BOUND,
        "an allocation of {} bytes (the bound is {ALLOCATION_BOUND})",
        out.largest
    );
}

#[test]
fn a_data_reply_whose_length_disagrees_with_its_packet_is_refused() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out = session(Ask::Read, 5, |id| {
        let mut f = reply(DATA, id, |b| put_string(b, &[b'x'; 100]));
        f[9..13].copy_from_slice(&10u32.to_be_bytes());
        f
    });
    assert!(out.call.is_err(), "the data's length is not the packet's");
    let failure = out.failure.expect("the session says why it failed");
    assert!(failure.contains("says its data is 10 bytes"), "{failure}");
}

#[test]
fn a_data_reply_longer_than_the_read_asked_is_refused() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // `ask` reads 4096 bytes.
    let out = session(Ask::Read, 5, |id| {
        reply(DATA, id, |b| put_string(b, &[b'x'; 5000]))
    });
    let e = out
        .call
        .expect_err("more bytes than asked for are no answer");
    assert!(
        e.to_string().contains("more data than the read asked"),
        "{e}"
    );
}

#[test]
fn limits_a_server_states_never_size_a_read_past_the_longest_packet() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // A packet length too small to subtract a header from, and a read
    // length beyond 32 bits.
    let out = session(Ask::Read, 200, |id| {
        reply(EXTENDED_REPLY, id, |b| {
            for v in [10u64, 1 << 40, 1 << 40, 0] {
                b.extend_from_slice(&v.to_be_bytes());
            }
        })
    });
    out.call.expect("the file reads");
    assert!(out.largest <= ALLOCATION_BOUND, "{} bytes", out.largest);
}

#[test]
fn a_server_flooding_its_stderr_costs_one_bounded_line_not_memory() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    // 64 MiB on one line: the server's stderr is ssh's, and ssh's is read.
    let server = common::FakeServer::new()
        .file("/srv/a", 1, b"a")
        .stderr(64 << 20);
    let source = server.source(dir.path());
    LARGEST.store(0, Ordering::SeqCst);
    TRACKING.store(true, Ordering::SeqCst);
    let connected = source.connect();
    TRACKING.store(false, Ordering::SeqCst);
    connected.expect("the server answers after its flood");
    let largest = LARGEST.load(Ordering::SeqCst);
    assert!(
        largest <= ALLOCATION_BOUND,
        "an allocation of {largest} bytes (the bound is {ALLOCATION_BOUND})"
    );
}
