//! Every number that bounds Canopy's work, in one place.
//!
//! The engine, the Tauri commands, `canopy-list` and (through the generated
//! bindings) the UI all read these; nothing else hard-codes a depth, cap or size.
#![forbid(unsafe_code)]

pub use crate::wire::Limits;
use std::time::Duration;

/// Levels listed when the caller does not say: the folder's entries and theirs.
pub const DEFAULT_DEPTH: u32 = 2;
/// Deepest listing accepted; deeper requests are `INVALID_ARGUMENT`.
pub const MAX_DEPTH: u32 = 64;
/// Entries shown for each folder below the root.
pub const NESTED_CAP: u32 = 100;
/// Entries in one page of the root (UI, `--json` and text mode alike).
pub const PAGE: u32 = 500;
/// Largest page a caller may ask for over IPC.
pub const MAX_PAGE: u32 = 10_000;
/// Names sampled to find a deep page (see `select`): the sample's memory,
/// and the number of buckets a folder is split into while narrowing.
pub const SELECTION_SAMPLE: usize = 4096;
/// Candidates kept beyond the page while selecting it: a page starting at
/// most this far in is chosen in one pass; deeper ones narrow first.
pub const SELECTION_WINDOW: usize = 2048;
/// Narrowing rounds of a deep selection before a bucket is kept whatever its
/// size: each round shrinks the range to one bucket of a random sample, so a
/// further unlucky round in a row is far less likely than the folder
/// changing while it is read.
pub const SELECTION_ROUNDS: u32 = 4;
/// How far from the sample's estimate of a deep page (in standard
/// deviations) its counting pass tells the sample's buckets apart; entries
/// beyond are counted by comparing with the outermost boundaries only.
pub const SELECTION_SPREAD_SD: u64 = 8;
/// Longest filter accepted, in bytes (a name holds at most 255).
pub const MAX_FILTER_BYTES: usize = 1024;
/// Most alternatives a whole-name glob's `{a,b}` groups may spell out (the
/// product over its groups): each is matched on its own, so this bounds a
/// name's cost at that many linear matches.
pub const MAX_GLOB_ALTERNATIVES: usize = 64;
/// The longest line of the listing text (`canopy-list`'s, and `canopy-mcp`'s
/// listings), in bytes, its line break aside. A line holds at most two
/// escaped fields (a path and a link's target, a folder and a pattern); one
/// longer than `LINE_FIELD_BYTES` is cut in its middle, where `\cut{N}`
/// stands for the N bytes of its escaped text left out (a backslash in a
/// name is always written `\\`, so no name holds the marker). The rest of a
/// line (tags, counts, notes, a size) takes at most `LINE_FRAME_BYTES`.
pub const LIST_LINE_BYTES: usize = 16 * 1024;
pub const LINE_FRAME_BYTES: usize = 512;
pub const LINE_FIELD_BYTES: usize = (LIST_LINE_BYTES - LINE_FRAME_BYTES) / 2;
/// Under the size or modified order every entry is `lstat`ed; that scan may
/// use this share (percent) of the time left for a folder, so the rest of the
/// names can still be counted. An entry not reached sorts last, and the
/// folder says how many were checked (`partialOrder`, `checked`).
pub const STAT_TIME_SHARE_PERCENT: u32 = 75;
/// `lstat`s made between two looks at the clock during that scan: it may
/// overrun its share by this many calls.
pub const STATS_PER_CLOCK: u64 = 16;
/// Extensions told apart when counting what a truncated folder hides by
/// group; further extensions count as "other".
pub const REST_EXTENSIONS: usize = 64;
/// Longest extension told apart (ASCII letters and digits only); longer or
/// other ones count as "other", so no extension can forge a line.
pub const REST_EXTENSION_BYTES: usize = 16;
/// Groups named in what a truncated folder hides; the rest is one "other".
pub const REST_GROUPS_SHOWN: usize = 5;
/// Largest ignore file read (`.gitignore`, `.git/info/exclude`, the global
/// excludes file); a larger one is not used, and its folder says so.
pub const MAX_IGNORE_FILE_BYTES: u64 = 1024 * 1024;
/// Largest `.git` file (`gitdir: PATH`) or `.git/HEAD` read when deciding
/// whether a `.git` is a repository; a larger one does not make one.
pub const MAX_GIT_MARKER_BYTES: u64 = 4096;
/// Ignore rules that apply to one folder at most (its chain: the
/// `.gitignore` of the folder and of each folder above it in its
/// repository, `.git/info/exclude` and the global excludes file), and their
/// text in bytes: every name is matched against them, so a hostile folder
/// (a `.gitignore` of 90,000 globs, or a deep chain of large ones) can
/// exhaust neither memory nor time. A file whose rules would take its chain
/// past either is not used, and its folder says so (`TOO_LARGE`); other
/// folders of the listing, whose chains fit, are not affected.
pub const MAX_IGNORE_RULES: usize = 5_000;
/// The text of one folder's rules, in bytes (see `MAX_IGNORE_RULES`). A
/// rule costs at most one matching step per byte of its text and byte of
/// the name, so this also bounds the work per name.
pub const MAX_IGNORE_RULE_BYTES: usize = 128 * 1024;
/// What one folder's rules may compile to, in bytes (a `[...]` class holds
/// 32): a file whose rules would take its chain past it is not used
/// (`TOO_LARGE`).
pub const MAX_IGNORE_COMPILED_BYTES: usize = 3 * 512 * 1024;
/// The compiled rules one listing holds at once, in bytes: the chains of
/// the folders it has yet to read (a deep listing keeps many). Past it a
/// further file is not used (`TOO_LARGE`, "list this folder by itself");
/// a layer's share is given back when no folder needs it any more, so a
/// listing that reads its folders one after another never reaches it.
pub const MAX_IGNORE_HELD_BYTES: usize = 64 * 1024 * 1024;
/// Largest git index read (`.git/index`, and a split index's shared
/// index) to learn which files a repository tracks (git never ignores a
/// tracked file): a larger one is not read, and nothing in its repository
/// is hidden (`TOO_LARGE`). About a million paths.
pub const MAX_GIT_INDEX_BYTES: u64 = 128 * 1024 * 1024;
/// The paths of the repositories' indexes one listing holds at once, in
/// bytes (with 8 bytes a path to find them): the repositories of the
/// folders it has yet to read. An index whose paths would pass it is not
/// used (`TOO_LARGE`), and nothing in its repository is hidden.
pub const MAX_TRACKED_HELD_BYTES: usize = 128 * 1024 * 1024;
/// An index is read this many bytes at a time, never whole.
pub const INDEX_READ_WINDOW: usize = 64 * 1024;
/// Matching steps between two looks at the clock and the cancel token
/// while ignore rules are matched: matching stops this close to the
/// folder's deadline, or to a cancel.
pub const IGNORE_STEPS_PER_CHECK: u64 = 1 << 16;
/// Longest time spent reading one folder before it is returned as `TIMEOUT`;
/// for a source read over a link (`Source::paced`), longest wait for one
/// batch of its names.
pub const TIME_BUDGET: Duration = Duration::from_secs(2);
/// Longest time spent reading one folder's ignore files over a link (the
/// repository's `.git` looked for above it, then its `.gitignore`s): past
/// it nothing is hidden and the folder says `TIMEOUT`. Within the step of
/// `TIME_BUDGET` the files are read in.
pub const IGNORE_READ_TIME: Duration = Duration::from_millis(1_500);
/// Longest read of one folder over a link when the request has no time
/// budget (`canopy-list --all`): each batch still has `TIME_BUDGET`, and a
/// server that never ends a folder (`--all` holds every name of the top
/// level to sort them) is cut here, with a lower bound.
pub const LINK_FOLDER_TIME: Duration = Duration::from_secs(60);
/// Entries in one reply at most: a default depth-2 reply (a page of `PAGE`
/// and `NESTED_CAP` for each of its folders) is never cut.
pub const MAX_REPLY_ENTRIES: u64 = PAGE as u64 * (1 + NESTED_CAP as u64);
/// Names read from the kernel for one request at most (the root's passes count once).
pub const MAX_NAMES_READ: u64 = 1_000_000;
/// Longest time one request spends in all, the describe phase included.
pub const REQUEST_TIME: Duration = Duration::from_secs(5);
/// How long past a step's deadline a caller waits before leaving a call behind.
pub const ABANDON_GRACE: Duration = Duration::from_millis(250);
/// Calls left behind at once at one place (a device, an entry, a path): once
/// this many are stuck there, a further call there fails at once.
pub const MAX_STUCK_PER_DEVICE: usize = 1;
/// Calls left behind at once in all; beyond this every call fails at once.
pub const MAX_STUCK_THREADS: usize = 8;
/// Idle I/O workers kept for reuse.
pub const IDLE_WORKERS: usize = 2;
/// Devices remembered as answering (their calls never wait for a first
/// call's outcome); beyond this the oldest is forgotten and probed again.
pub const MAX_PROVEN: usize = 4_096;

/// Longest wait for one SFTP reply before the connection is held lost and
/// closed (its waiting calls fail, the next request reconnects): just past
/// the time the engine gives a step up (`TIME_BUDGET` plus `ABANDON_GRACE`),
/// so a call the engine left behind returns soon after and frees its place.
pub const SFTP_REPLY_WAIT: Duration = Duration::from_millis(2_750);
/// Longest time `ssh` may take to reach a server and finish its handshake
/// (its `ConnectTimeout`), and the SFTP session to start after it.
pub const SFTP_CONNECT_TIME: Duration = Duration::from_secs(10);
/// Longest a password or passphrase prompt waits for the user before it
/// is withdrawn (`ssh` is told no: `AUTH_FAILED`). While a prompt is open
/// the connect's own time (`SFTP_CONNECT_TIME`) is paused.
pub const ASKPASS_WAIT: Duration = Duration::from_secs(120);
/// Longest prompt passed on to the user, in characters (a server chooses
/// its keyboard-interactive prompt).
pub const ASKPASS_PROMPT_CHARS: usize = 1_000;
/// Longest secret passed back to `ssh`, in bytes.
pub const ASKPASS_SECRET_MAX: usize = 4 * 1024;
/// Longest request an askpass client may send (token, connect, kind,
/// prompt), in bytes, and the time it has to send it in all.
pub const ASKPASS_REQUEST_MAX: u64 = 16 * 1024;
pub const ASKPASS_REQUEST_TIME: Duration = Duration::from_secs(5);
/// Askpass clients served at once; more are refused at once.
pub const ASKPASS_CLIENTS: usize = 8;
/// Prompts shown for one connect (a wrong passphrase is asked again, as
/// `ssh` does); past this they are refused unshown.
pub const ASKPASS_PROMPTS: usize = 6;
/// Requests (`lstat`, `readlink`, `realpath`) spent telling why a server's
/// link does not resolve: SFTP v3 has no code for a loop (OpenSSH's server
/// says "no such file" for one), so the chain is followed to see whether it
/// comes back on itself (a loop) or reaches a missing name (dangling); past
/// this many, the target is left unknown.
pub const SFTP_LINK_LOOKUPS: usize = 64;
/// Lines of `ssh`'s own messages kept to explain a failed connection.
pub const SSH_MESSAGE_LINES: usize = 64;
/// The most of one such line kept, in bytes: the rest of a longer one is
/// dropped as it is read (the server's own stderr reaches `ssh`'s, so a
/// line can be as long as a server makes it).
pub const SSH_MESSAGE_LINE_BYTES: usize = 2 * 1024;

/// The furthest time from the epoch, either way, that a date can hold
/// (ECMAScript's `Date` range): a modification time beyond it is left out.
pub const MAX_TIME_MS: i64 = 8_640_000_000_000_000;

/// Bytes read by one preview request when the caller does not say.
pub const PREVIEW_CHUNK: u64 = 256 * 1024;
/// Largest preview chunk; larger requests are clamped and the reply says so.
pub const MAX_PREVIEW_CHUNK: u64 = 4 * 1024 * 1024;
/// Largest image sent to the UI in one piece.
pub const IMAGE_CAP: u64 = 32 * 1024 * 1024;
/// Bytes of a binary file carried (as base64) for the hex view.
pub const HEX_VIEW_BYTES: u64 = 4 * 1024;
/// Bytes examined to decide whether a file is text or binary.
pub const SNIFF_BYTES: usize = 1024;

/// Bytes of a file "Open…" examines: its magic, or that text is UTF-8.
pub const OPEN_SNIFF_BYTES: usize = 64 * 1024;
/// Largest zip central directory "Open…" reads to look for macros; a larger
/// one is not opened.
pub const ZIP_DIRECTORY_CAP: u64 = 4 * 1024 * 1024;
/// Largest `[Content_Types].xml` (stored or inflated) "Open…" reads to look
/// for macros in an OOXML document; a larger one is not opened.
pub const CONTENT_TYPES_CAP: usize = 1024 * 1024;
/// Longest wait for the system to name a file's default application.
pub const HANDLER_QUERY_TIMEOUT: Duration = Duration::from_secs(5);

/// Most folders watched for live refresh at once (one inotify watch each);
/// the rest refresh when the window regains focus, and the window says so.
pub const MAX_WATCHED_FOLDERS: usize = 1024;
/// A folder's change is reported once no event touched any watched folder
/// for this long...
pub const WATCH_QUIET: Duration = Duration::from_millis(150);
/// ...or at the latest this long after the first unreported event, so a
/// storm of changes is shown while it lasts.
pub const WATCH_MAX_DELAY: Duration = Duration::from_millis(500);

/// The remembered view is written once changes pause for this long...
pub const SAVE_QUIET: Duration = Duration::from_millis(500);
/// ...or at the latest this long after the first unsaved change, so a folder
/// that never stops changing cannot keep it from being written.
pub const SAVE_MAX_DELAY: Duration = Duration::from_secs(2);

/// Largest saved-view file read at start; a larger one is ignored.
pub const SAVED_VIEW_MAX_BYTES: u64 = 1024 * 1024;
/// Most expanded folders remembered across a restart (in tree order).
pub const SAVED_EXPANDED_MAX: usize = 4096;
/// Most recent servers ("Connect to server…") remembered, newest first.
pub const RECENT_SERVERS_MAX: usize = 8;
/// Longest `sftp://` URL remembered as a recent server.
pub const RECENT_SERVER_MAX_BYTES: usize = 2048;
/// Largest GTK bookmarks file (or XDG user-dirs file) read for the
/// sidebar; "Bookmark this folder" leaves a larger one alone (`TOO_LARGE`).
pub const BOOKMARKS_MAX_BYTES: u64 = 1024 * 1024;
/// The freedesktop "normal" thumbnail size: at most this many pixels a side.
pub const THUMB_SIZE: u32 = 128;
/// Most bytes a thumbnail's decoder may allocate (a decompression bomb of
/// a small file asks far more, and is refused).
pub const THUMB_DECODE_BYTES: u64 = 256 * 1024 * 1024;
/// Most entries one drag or one Ctrl+C hands to other applications.
pub const TRANSFER_MAX_ENTRIES: usize = 10_000;
/// The window's Find: most hits one search shows; past them it stops (and
/// says there were more).
pub const FIND_HITS: u64 = 10_000;
/// The window's Find: longest time one search runs (Esc stops it sooner).
pub const FIND_TIME: Duration = Duration::from_secs(60);
/// The window's Find: most names one search reads (a listing's
/// `MAX_NAMES_READ` is one screenful's budget; a search is asked for more).
pub const FIND_MAX_NAMES: u64 = 10_000_000;
/// The window's Find: characters of a matching line shown before its first
/// match (the rest before it is left out, and the line says so).
pub const FIND_LINE_LEAD: usize = 40;
/// The window's Find: hits gathered into one progress message at most
/// (messages are also sent every `LIST_PROGRESS_INTERVAL`).
pub const FIND_BATCH: usize = 500;
/// How long the mount watcher waits for the mount table between looks
/// (a change wakes it at once: this only bounds a wait that saw none).
pub const MOUNT_WATCH_WAIT: Duration = Duration::from_secs(3600);

/// `canopy-mcp`: the most characters one tool reply's text holds (about
/// 10,000 tokens), whatever the folder or file.
pub const MCP_REPLY_CHARS: usize = 40_000;
/// `canopy-mcp`: the deepest `list_directory` an agent may ask for.
pub const MCP_MAX_DEPTH: u32 = 10;
/// The shortest line a listing can print (`[FILE] x` and its line break).
pub const MCP_MIN_LINE_CHARS: usize = 9;
/// What a search hit costs a page besides its path and line bytes (its
/// line number, tags and punctuation), for a search's `page_bytes`.
pub const SEARCH_HIT_OVERHEAD: u64 = 24;
/// `canopy-mcp`: entries asked of the engine for one reply (the top level's
/// page, and the request's entries budget): more could never be printed.
pub const MCP_PAGE: u32 = (MCP_REPLY_CHARS / MCP_MIN_LINE_CHARS) as u32;
/// `canopy-mcp`: bytes `read_file` reads at most per call (their text is at
/// most as many characters, so it fits the reply with its header).
pub const MCP_READ_CHUNK: u64 = 32 * 1024;
/// Most bytes a line-addressed read looks through to find its lines and
/// count them (`lines.rs`).
pub const LINE_SCAN_BYTES: u64 = 64 * 1024 * 1024;
/// Most bytes of one file a content search reads (`search.rs`).
pub const SEARCH_FILE_BYTES: u64 = 16 * 1024 * 1024;
/// Most bytes one search reads in all.
pub const SEARCH_BYTES: u64 = 2 * 1024 * 1024 * 1024;
/// Characters of a matching line a search shows.
pub const SEARCH_LINE_CHARS: usize = 200;
/// Bytes of a matching line a search keeps: more than `SEARCH_LINE_CHARS`
/// characters of any encoding (at most 4 bytes each), so a line kept this
/// long is shown exactly as the whole line would be, cut and all.
pub const SEARCH_LINE_BYTES: usize = SEARCH_LINE_CHARS * 4 + 1;
/// Folders or files a search could not read that it names, each with its
/// code (the rest are only counted).
pub const SEARCH_PROBLEMS: usize = 20;
/// Most patterns a regular expression may compile to (grep-regex's size limit).
pub const SEARCH_REGEX_BYTES: usize = 1024 * 1024;
/// Bytes a regular expression is matched over between two looks at the
/// step's flags (its deadline, a cancel): one byte can cost a new state of
/// the matcher's automaton, so this is small (each look is two atomic loads).
pub const SEARCH_BYTES_PER_LOOK: usize = 16;
/// Bytes matched between two looks at the clock (the search's own
/// deadline) while the matcher makes no new states; while it does, every
/// look at the flags looks at the clock too.
pub const SEARCH_BYTES_PER_CLOCK: usize = 4096;
/// Most files one `read_files` call reads.
pub const MCP_READ_FILES_MAX: usize = 10;
/// The window: how often a listing in flight reports how far it got (at
/// most; nothing is sent while nothing changed).
pub const LIST_PROGRESS_INTERVAL: Duration = Duration::from_millis(100);
/// `canopy-mcp`: how often a long tool call reports progress.
pub const MCP_PROGRESS_INTERVAL: Duration = Duration::from_millis(500);
/// `canopy-mcp`: the most characters an error result's text holds. Its
/// message may quote what the agent sent (a path, a value); a longer one is cut.
pub const MCP_ERROR_CHARS: usize = 2_000;
/// Characters of a path `folder_sizes` writes in its heading lines (the
/// folder counted, a reason's example): a deep path of escaped names can be
/// far longer than the reply, and the heading is always written.
pub const MCP_HEADING_PATH_CHARS: usize = 1_000;
/// `canopy-mcp`: the largest `read_file` offset (a file offset is a signed 64-bit number).
pub const MCP_MAX_OFFSET: u64 = i64::MAX as u64;
/// `canopy-mcp`: tool calls that touch the filesystem at once; the rest wait
/// their turn (cancellable), so a client that sends thousands of calls
/// without reading the replies costs a few threads, not thousands.
pub const MCP_CONCURRENT_CALLS: usize = 4;
/// `canopy-mcp`: requests read and not yet answered (their reply written to
/// stdout) at most; past it no request is read until a reply is written.
/// A client that sends thousands of requests and never reads its replies
/// costs this many replies, not one per request.
pub const MCP_UNANSWERED_REQUESTS: usize = 64;
/// Lookups one resolution inside a set of folders makes at most (each
/// component walked, its links' and the re-walks from a root included):
/// past it the path is `LOOP`. The kernel's own bound is a path of
/// `PATH_MAX` bytes and 40 links; a crafted chain of links that climbs out
/// of a root and back in would otherwise cost a worker without end.
pub const MAX_RESOLVE_STEPS: u32 = 16_384;
/// The part of `TIME_BUDGET` such a resolution may take before it stops
/// itself (the rest is the margin before its worker would be given up and
/// its place marked stuck: a crafted path is not a dead mount).
pub const RESOLVE_SHARE_PERCENT: u32 = 75;
/// `canopy-mcp`: longest wait for the client to answer `roots/list`.
pub const MCP_ROOTS_TIMEOUT: Duration = Duration::from_secs(5);

// ---- Folder sizes (see `sizes`) ----

/// Levels below the root a sizes request reports when it does not say.
pub const DEFAULT_SIZES_DEPTH: u32 = 2;
/// Deepest level a sizes request may report (it counts everything below
/// whatever the depth; the depth bounds only what is reported).
pub const MAX_SIZES_DEPTH: u32 = 8;
/// Entries one sizes request counts at most; past it every figure not
/// finished is a lower bound (`BUDGET`).
pub const SIZES_MAX_ENTRIES: u64 = 10_000_000;
/// Longest time one sizes request runs; past it, as `SIZES_MAX_ENTRIES`.
pub const SIZES_REQUEST_TIME: Duration = Duration::from_secs(60);
/// Threads reading folders for one sizes request at most (fewer on a
/// machine with fewer cores), as `gdu` and `dua` use.
pub const SIZES_MAX_THREADS: usize = 8;
/// How often a sizes request in flight reports its partial figures (at
/// most; nothing is sent while nothing changed).
pub const SIZES_PROGRESS: Duration = Duration::from_millis(150);
/// Children named in a reported folder's `largest`; the rest are summed.
pub const SIZES_LARGEST: usize = 10;
/// Names of one folder examined (`lstat`ed) as one job: a larger folder's
/// names are shared out in such chunks among the threads.
pub const SIZES_CHUNK: usize = 1024;
/// Subfolders of one folder queued as jobs at a time: the rest wait as
/// names (or, on a source that can resume a read, unread), so the work
/// queued is O(depth x this), never O(folders).
pub const SIZES_EXPAND: usize = 32;
/// Folders one `folder_sizes` request may name for figures (the window
/// names those it shows; it remembers at most as many).
pub const SIZES_MAX_SHOWN: usize = 20_000;

// ---- Archives (see `archive`) ----

/// How many bytes of a file are read to tell an archive by its magic bytes
/// (a tar's header is 512 bytes in; a compressed one needs its first block).
pub const ARCHIVE_SNIFF_BYTES: usize = 8 * 1024;
/// The ratio guard: decompressing stops with `RATIO` once the output passes
/// this many times the compressed bytes read (plus `ARCHIVE_RATIO_SLACK`).
pub const ARCHIVE_RATIO_MAX: u64 = 1_000;
/// Output allowed before the ratio guard applies (tiny files compress badly
/// or absurdly well; a header alone is a few hundred bytes).
pub const ARCHIVE_RATIO_SLACK: u64 = 1024 * 1024;
/// How far into a compressed stream a preview decompresses to reach an
/// entry's data (a tar.gz entry lies after every entry before it).
pub const ARCHIVE_SKIP_MAX: u64 = 512 * 1024 * 1024;
/// How long reading an archive's index (a tar's headers, a zip's central
/// directory) may take before the listing shows what was read and says it
/// is at least that (`TIMEOUT`): inside the folder's own budget
/// (`TIME_BUDGET`, 2 s), so the archive's folder is shown, never given up.
pub const ARCHIVE_INDEX_TIME: Duration = Duration::from_millis(1500);
/// The most memory one archive's index may take, in bytes (its folders,
/// their names' bytes and its entries, as `archive::tree` counts them): an
/// entry that could pass it is not filed, and the archive lists what was
/// read, marked `TOO_LARGE` and a lower bound (a zip whose 400 names are
/// 64 KiB paths of one-letter folders would take gigabytes). The names it
/// holds are also what a listing of the archive sorts and shows (a tar's
/// name may be a mebibyte), so this bounds that work too.
pub const ARCHIVE_INDEX_BYTES: u64 = 16 * 1024 * 1024;
/// Bytes of work (names walked, records and headers read) between two looks
/// at the clock while an index is built: it stops within this much work of
/// its deadline, whatever one entry holds.
pub const ARCHIVE_WORK_PER_LOOK: u64 = 64 * 1024;
/// The most memory the archives' indexes kept between listings take in all
/// (besides `ARCHIVE_CACHE`): the oldest are dropped past it.
pub const ARCHIVE_CACHE_BYTES: u64 = 2 * ARCHIVE_INDEX_BYTES;
/// A zip's central directory is read in windows of this many bytes (a
/// record is at most 46 + 3 x 65,535 bytes, so one always fits).
pub const ARCHIVE_WINDOW: usize = 256 * 1024;
/// Archives whose index is kept between listings (the last ones opened).
pub const ARCHIVE_CACHE: usize = 4;
/// The largest LZMA/XZ dictionary or zstd window a decoder may allocate.
pub const ARCHIVE_DICT_MAX: u32 = 64 * 1024 * 1024;
/// The longest symlink target read from an archive entry.
pub const ARCHIVE_LINK_MAX: usize = 4096;
/// Folders inside an archive of at most this many entries say which
/// names occur twice (`DUPLICATE`); a larger one lists both without
/// telling, which would hold every name of the folder.
pub const ARCHIVE_DUPLICATES_CHECKED: usize = 4096;
/// At most this many names a folder of an archive read are remembered for
/// their note (encrypted, duplicate, named like an archive); past it, a
/// name is looked up again or goes without.
pub const ARCHIVE_NOTES_MAX: usize = 10_000;
/// Archives open inside archives at most this deep (the outermost is 1);
/// deeper ones are listed as archives and refused with `TOO_DEEP`.
pub const ARCHIVE_NESTING_MAX: u8 = 3;
/// A compressed archive inside an archive is read into memory once, up to
/// this size (a stored one is read in place, whatever its size).
pub const ARCHIVE_NESTED_MEMORY_MAX: u64 = 64 * 1024 * 1024;
/// An archive inside a compressed tar is kept whole by the tar's indexing
/// pass when it is at most this large, so that opening it does not
/// decompress the tar again from its start ...
pub const ARCHIVE_NESTED_KEEP_MAX: u64 = 2 * 1024 * 1024;
/// ... and while the archives a tar's index keeps hold at most this much
/// (past it, one is read again from the tar when it is opened).
pub const ARCHIVE_NESTED_KEPT_MAX: u64 = 8 * 1024 * 1024;
/// A zip's central directory larger than this is refused (`TOO_LARGE`): its
/// records are addressed by 31-bit offsets in the index (about 20 million
/// entries).
pub const ARCHIVE_DIRECTORY_MAX: u64 = (1 << 31) - 1;

/// The values of [`Limits`].
pub const LIMITS: Limits = Limits {
    default_depth: DEFAULT_DEPTH,
    max_depth: MAX_DEPTH,
    nested_cap: NESTED_CAP,
    page: PAGE,
    max_page: MAX_PAGE,
    time_budget_ms: TIME_BUDGET.as_millis() as u64,
    request_time_ms: REQUEST_TIME.as_millis() as u64,
    max_reply_entries: MAX_REPLY_ENTRIES,
    max_names_read: MAX_NAMES_READ,
    max_stuck_threads: MAX_STUCK_THREADS as u32,
    preview_chunk: PREVIEW_CHUNK,
    max_preview_chunk: MAX_PREVIEW_CHUNK,
    image_cap: IMAGE_CAP,
    saved_expanded_max: SAVED_EXPANDED_MAX as u32,
    recent_servers_max: RECENT_SERVERS_MAX as u32,
};

/// The sandboxed renderer's address-space limit (`RLIMIT_AS`) for each child.
pub const RENDER_ADDRESS_SPACE: u64 = 512 * 1024 * 1024;
/// The renderer's CPU limit (`RLIMIT_CPU`), in seconds, for each child.
pub const RENDER_CPU_SECONDS: u64 = 5;
/// The most a renderer's child may write (a PNG or text); more kills it.
pub const RENDER_OUTPUT_CAP: usize = 8 * 1024 * 1024;
/// The most an image Canopy encodes for the window may take (it crosses
/// IPC once, as base64): a larger one is `TOO_LARGE`, never sent.
pub const WINDOW_IMAGE_CAP: usize = 16 * 1024 * 1024;
/// How long one renderer job (one page, one poster frame) may take before
/// its process group is killed.
pub const RENDER_DEADLINE: Duration = Duration::from_secs(5);
/// How often the renderer looks at its job's cancel token while it waits, ms.
pub const RENDER_POLL_MS: u64 = 50;
/// The end of a renderer child's error output kept, to say why it failed.
pub const RENDER_STDERR_KEPT: usize = 4096;
/// Widest page image the renderer makes, in pixels (the pane's width is
/// clamped to it); narrower requests are clamped up to [`MIN_RENDER_WIDTH`].
pub const MAX_RENDER_WIDTH: u32 = 2400;
/// Narrowest page image the renderer makes, in pixels.
pub const MIN_RENDER_WIDTH: u32 = 64;
/// Tallest page image the app takes from the renderer, in pixels (a
/// taller one is `TOO_LARGE`).
pub const MAX_RENDER_HEIGHT: u32 = MAX_RENDER_WIDTH * 16;
/// The most a decoded page image may hold in memory while the app encodes
/// it again (its pixels, at 4 bytes each; a PDF page's at 3).
pub const RENDER_DECODE_BYTES: u64 = 256 * 1024 * 1024;
/// The most text of one PDF page sent to the window, in bytes.
pub const PDF_PAGE_TEXT_CAP: usize = 256 * 1024;
/// The most of `pdfinfo`'s answer read.
pub const PDF_INFO_CAP: usize = 64 * 1024;
/// The most of a photo read to find its EXIF details.
pub const EXIF_READ_BUDGET: usize = 1024 * 1024;
/// The longest EXIF text field shown (a camera's name...), in characters.
pub const EXIF_FIELD_CHARS: usize = 200;
/// The most of an audio file read for its tags and properties (1 MiB of
/// tags and up to `COVER_ART_CAP` of cover art).
pub const AUDIO_READ_BUDGET: u64 = 5 * 1024 * 1024;
/// The largest embedded cover shown; a larger one is left out and said.
pub const COVER_ART_CAP: u64 = 4 * 1024 * 1024;
/// The most the tag reader allocates for one item (a tag, a picture).
/// The most one request of the `canopy-media:` protocol answers (a byte range).
pub const MEDIA_RANGE_CAP: u64 = 1024 * 1024;
/// The largest audio file the window plays: it is fetched range by range
/// into the page's memory (WebKitGTK's player reads no custom protocol).
pub const MEDIA_PLAY_CAP: u64 = 64 * 1024 * 1024;
/// The largest video the window plays, fetched the same way as audio
/// (past it, its poster frame and details are shown, and the pane says why
/// it does not play).
pub const VIDEO_PLAY_CAP: u64 = 256 * 1024 * 1024;
/// The most of `ffprobe`'s answer (JSON, the chosen fields only) read.
pub const VIDEO_PROBE_CAP: usize = 256 * 1024;
/// The most bytes of a file read to tell its container (an Ogg file's
/// Theora header may follow a Skeleton stream's page).
pub const VIDEO_HEAD_BYTES: usize = 1024;
/// The longest codec or container name shown, in characters.
pub const VIDEO_FIELD_CHARS: usize = 120;
/// The most of `fc-query`'s answer read (one record a face and named
/// instance, each with its charset); a longer answer is read up to here.
pub const FONT_QUERY_CAP: usize = 1024 * 1024;
/// The size the font's sample line is drawn at, in pixels.
pub const FONT_SAMPLE_PX: u32 = 40;
/// The characters of a sample made from what a font covers, when it has no
/// Latin letters for the pangram.
pub const FONT_SAMPLE_CHARS: usize = 24;
/// The longest font name or style shown, in characters.
pub const FONT_FIELD_CHARS: usize = 200;
/// A photo rendered by the sandbox is at most this many times as tall as
/// it is wide (a panorama standing up is shrunk to fit).
pub const PHOTO_RENDER_TALL: u32 = 4;
/// The most the tag reader allocates for one item (a tag, a picture).
pub const AUDIO_ALLOCATION_LIMIT: usize = 8 * 1024 * 1024;

// ---- The numbers the docs state (see ARCHITECTURE.md, "Limits and the docs") ----

/// How a number the docs state is written, so that `1.5 MiB`, `2.75 s` and
/// `10,000` are each compared in the right unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Figure {
    /// Entries, names, characters, threads, levels...: a plain number (or a
    /// percentage).
    Count(u64),
    /// Bytes: written in B, KiB, MiB or GiB, or as a plain number of bytes.
    Bytes(u64),
    /// A time: written in ms, s or minutes.
    Time(Duration),
}

/// `(name, figure)` for each constant named, so a name and its value cannot
/// drift apart.
macro_rules! documented {
    ($($kind:ident $name:ident),* $(,)?) => {
        &[$((stringify!($name), documented!(@$kind $name))),*]
    };
    (@count $name:ident) => { Figure::Count($name as u64) };
    (@bytes $name:ident) => { Figure::Bytes($name as u64) };
    (@time $name:ident) => { Figure::Time($name) };
    (@seconds $name:ident) => { Figure::Time(Duration::from_secs($name)) };
}

/// Every constant of this module that the docs (`README.md`,
/// `ARCHITECTURE.md`, `docs/*.md`) state. Each figure there is marked
/// `<!-- limit: NAME -->` right after it; a test (`docs_numbers`) fails when
/// a marked figure is not the value here, when a marker names a constant
/// not listed here, or when a constant listed here is marked nowhere.
pub const DOCUMENTED: &[(&str, Figure)] = documented![
    // The listing.
    count DEFAULT_DEPTH,
    count MAX_DEPTH,
    count NESTED_CAP,
    count PAGE,
    count MAX_PAGE,
    bytes MAX_FILTER_BYTES,
    count MAX_GLOB_ALTERNATIVES,
    bytes LIST_LINE_BYTES,
    count STAT_TIME_SHARE_PERCENT,
    count REST_EXTENSIONS,
    count REST_EXTENSION_BYTES,
    count REST_GROUPS_SHOWN,
    bytes MAX_IGNORE_FILE_BYTES,
    count MAX_IGNORE_RULES,
    bytes MAX_IGNORE_RULE_BYTES,
    bytes MAX_IGNORE_COMPILED_BYTES,
    bytes MAX_IGNORE_HELD_BYTES,
    bytes MAX_GIT_INDEX_BYTES,
    bytes MAX_TRACKED_HELD_BYTES,
    bytes INDEX_READ_WINDOW,
    time TIME_BUDGET,
    time IGNORE_READ_TIME,
    count MAX_REPLY_ENTRIES,
    count MAX_NAMES_READ,
    time REQUEST_TIME,
    count MAX_STUCK_THREADS,
    time LIST_PROGRESS_INTERVAL,
    // Servers.
    time SFTP_REPLY_WAIT,
    bytes SSH_MESSAGE_LINE_BYTES,
    count SFTP_LINK_LOOKUPS,
    time SFTP_CONNECT_TIME,
    time ASKPASS_WAIT,
    count ASKPASS_PROMPT_CHARS,
    count ASKPASS_PROMPTS,
    // Previews.
    bytes PREVIEW_CHUNK,
    bytes MAX_PREVIEW_CHUNK,
    bytes IMAGE_CAP,
    bytes HEX_VIEW_BYTES,
    bytes SNIFF_BYTES,
    // The window.
    count MAX_WATCHED_FOLDERS,
    time SAVE_QUIET,
    time SAVE_MAX_DELAY,
    bytes SAVED_VIEW_MAX_BYTES,
    bytes BOOKMARKS_MAX_BYTES,
    count SAVED_EXPANDED_MAX,
    count RECENT_SERVERS_MAX,
    count FIND_HITS,
    time FIND_TIME,
    count FIND_MAX_NAMES,
    count FIND_LINE_LEAD,
    // canopy-mcp.
    count MCP_REPLY_CHARS,
    count MCP_MAX_DEPTH,
    bytes MCP_READ_CHUNK,
    bytes LINE_SCAN_BYTES,
    bytes SEARCH_FILE_BYTES,
    bytes SEARCH_BYTES,
    count SEARCH_BYTES_PER_LOOK,
    count SEARCH_LINE_CHARS,
    count SEARCH_PROBLEMS,
    count MCP_READ_FILES_MAX,
    time MCP_PROGRESS_INTERVAL,
    count MCP_ERROR_CHARS,
    count MCP_HEADING_PATH_CHARS,
    count MCP_CONCURRENT_CALLS,
    count MCP_UNANSWERED_REQUESTS,
    count MAX_RESOLVE_STEPS,
    time MCP_ROOTS_TIMEOUT,
    // Folder sizes.
    count MAX_SIZES_DEPTH,
    count SIZES_MAX_ENTRIES,
    time SIZES_REQUEST_TIME,
    count SIZES_MAX_THREADS,
    count SIZES_LARGEST,
    count SIZES_EXPAND,
    // Archives.
    bytes ARCHIVE_SNIFF_BYTES,
    count ARCHIVE_RATIO_MAX,
    bytes ARCHIVE_RATIO_SLACK,
    bytes ARCHIVE_SKIP_MAX,
    time ARCHIVE_INDEX_TIME,
    bytes ARCHIVE_WINDOW,
    count ARCHIVE_CACHE,
    bytes ARCHIVE_CACHE_BYTES,
    bytes ARCHIVE_INDEX_BYTES,
    bytes ARCHIVE_WORK_PER_LOOK,
    bytes ARCHIVE_DICT_MAX,
    count ARCHIVE_DUPLICATES_CHECKED,
    count ARCHIVE_NESTING_MAX,
    bytes ARCHIVE_NESTED_MEMORY_MAX,
    bytes ARCHIVE_NESTED_KEEP_MAX,
    bytes ARCHIVE_NESTED_KEPT_MAX,
    bytes ARCHIVE_DIRECTORY_MAX,
    // The sandboxed renderer and media.
    bytes RENDER_ADDRESS_SPACE,
    seconds RENDER_CPU_SECONDS,
    bytes RENDER_OUTPUT_CAP,
    bytes WINDOW_IMAGE_CAP,
    time RENDER_DEADLINE,
    bytes EXIF_READ_BUDGET,
    bytes AUDIO_READ_BUDGET,
    bytes COVER_ART_CAP,
    bytes MEDIA_RANGE_CAP,
    bytes MEDIA_PLAY_CAP,
    bytes VIDEO_PLAY_CAP,
];

#[cfg(test)]
mod docs_numbers;

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `limit-values.ts` beside the ts-rs bindings (named like them, so the
    /// staleness check that runs `export_bindings` regenerates it too).
    #[test]
    fn export_bindings_limits_values() {
        let dir = std::env::var_os("TS_RS_EXPORT_DIR")
            .expect("TS_RS_EXPORT_DIR is set in .cargo/config.toml");
        let values = serde_json::to_value(LIMITS).unwrap();
        let mut body = String::new();
        for (key, value) in values.as_object().unwrap() {
            body.push_str(&format!("  {key}: {value},\n"));
        }
        let text = format!(
            "// Generated from src-tauri/core/src/limits.rs by `cargo test -p canopy-core`. Do not edit.\n\
             import type {{ Limits }} from \"./Limits\";\n\nexport const LIMITS: Limits = {{\n{body}}};\n"
        );
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(std::path::Path::new(&dir).join("limit-values.ts"), text).unwrap();
    }

    #[test]
    fn a_default_reply_fits_the_reply_budget_exactly() {
        assert_eq!(MAX_REPLY_ENTRIES, 50_500);
        assert_eq!(
            LIMITS.max_reply_entries,
            u64::from(LIMITS.page) * (1 + u64::from(LIMITS.nested_cap))
        );
    }
}
