//! A real OpenSSH server for the tests: Debian's `sshd`, started by the
//! test as an unprivileged user (`nobody` when the tests run as root) on
//! 127.0.0.1 at a free port, with a host key, a user key and a client
//! `ssh_config` in a temporary folder. The machine's own SSH setup is never
//! read or changed: the client is always given `-F` this folder's config.
//! The SFTP server inside it logs every request it receives (`-l DEBUG3`).
#![allow(dead_code)]

use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use canopy_sftp::{SftpFs, SshOptions, Target};

pub const HOST: &str = "canopy-test";
/// The passphrase of the key `Sshd::locked_key_config` adds.
pub const PASSPHRASE: &str = "correct horse";

pub struct Sshd {
    pub dir: tempfile::TempDir,
    pub port: u16,
    pub user: String,
    child: Option<Child>,
}

fn run(cmd: &mut Command) {
    let out = cmd.output().expect("runs");
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn keygen(path: &Path) {
    run(Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "canopy-test", "-f"])
        .arg(path));
}

pub fn is_root() -> bool {
    // SAFETY-free: the effective uid from /proc.
    fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|l| l.split_whitespace().nth(1).map(|u| u == "0"))
        .unwrap_or(false)
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The fingerprint `ssh-keygen -l` prints for a public key (SHA256:…).
pub fn fingerprint(public: &Path) -> String {
    let out = Command::new("ssh-keygen")
        .arg("-lf")
        .arg(public)
        .output()
        .unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .to_string()
}

impl Sshd {
    pub fn start() -> Sshd {
        let dir = tempfile::Builder::new()
            .prefix("canopy-sshd")
            .tempdir()
            .unwrap();
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
        let p = dir.path().to_path_buf();
        let p = p.as_path();
        keygen(&p.join("host_key"));
        keygen(&p.join("user_key"));
        keygen(&p.join("other_key"));
        fs::copy(p.join("user_key.pub"), p.join("authorized_keys")).unwrap();
        fs::create_dir(p.join("data")).unwrap();
        let user = if is_root() {
            "nobody".to_string()
        } else {
            String::from_utf8(Command::new("id").arg("-un").output().unwrap().stdout)
                .unwrap()
                .trim()
                .to_string()
        };
        if is_root() {
            fs::write(p.join("sshd.log"), b"").unwrap();
            for f in ["host_key", "authorized_keys", "sshd.log"] {
                run(Command::new("chown").arg("nobody:nogroup").arg(p.join(f)));
            }
        }
        let mut sshd = Sshd {
            port: 0,
            user,
            child: None,
            dir,
        };
        sshd.launch();
        sshd.write_client_config("config", "known_hosts", "user_key");
        let host_pub = fs::read_to_string(p.join("host_key.pub")).unwrap();
        let mut parts = host_pub.split_whitespace();
        let (kind, key) = (parts.next().unwrap(), parts.next().unwrap());
        fs::write(
            p.join("known_hosts"),
            format!("[127.0.0.1]:{} {kind} {key}\n", sshd.port),
        )
        .unwrap();
        sshd
    }

    /// Starts `sshd` (again, on a new port).
    pub fn launch(&mut self) {
        let p = self.dir.path();
        self.port = free_port();
        let config = format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {p}/host_key\nPidFile none\n\
             AuthorizedKeysFile {p}/authorized_keys\nStrictModes no\nUsePAM no\n\
             PasswordAuthentication no\nKbdInteractiveAuthentication no\nPubkeyAuthentication yes\n\
             AllowTcpForwarding no\nX11Forwarding no\nPermitTTY no\nLogLevel VERBOSE\n\
             Subsystem sftp internal-sftp -e -l DEBUG3\n",
            port = self.port,
            p = p.display()
        );
        fs::write(p.join("sshd_config"), config).unwrap();
        let mut cmd = if is_root() {
            let mut c = Command::new("setpriv");
            // The shadow group only so that sshd can read the account's
            // lock and expiry fields (unreadable, it takes it as locked).
            c.args([
                "--reuid=nobody",
                "--regid=nogroup",
                "--groups=shadow",
                "/usr/sbin/sshd",
            ]);
            c
        } else {
            Command::new("/usr/sbin/sshd")
        };
        cmd.arg("-D")
            .arg("-f")
            .arg(p.join("sshd_config"))
            .arg("-E")
            .arg(p.join("sshd.log"))
            .stdin(Stdio::null());
        self.child = Some(
            cmd.spawn()
                .expect("sshd starts (apt-get install openssh-server)"),
        );
        let until = Instant::now() + Duration::from_secs(10);
        loop {
            let log = fs::read_to_string(p.join("sshd.log")).unwrap_or_default();
            if log.contains(&format!("Server listening on 127.0.0.1 port {}", self.port)) {
                break;
            }
            if let Some(status) = self.child.as_mut().unwrap().try_wait().unwrap() {
                panic!("sshd ended ({status}): {log}");
            }
            assert!(Instant::now() < until, "sshd did not start: {log}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Writes an `ssh_config` at `name` using `known_hosts` and `key` of the folder.
    pub fn write_client_config(&self, name: &str, known_hosts: &str, key: &str) -> PathBuf {
        let p = self.dir.path();
        let text = format!(
            "Host {HOST}\n  HostName 127.0.0.1\n  Port {port}\n  User {user}\n  IdentityFile {p}/{key}\n\
             IdentitiesOnly yes\n  IdentityAgent none\n  UserKnownHostsFile {p}/{known_hosts}\n\
             GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking yes\n  PasswordAuthentication no\n\
             KbdInteractiveAuthentication no\n  ControlMaster no\n  LogLevel ERROR\n",
            port = self.port,
            user = self.user,
            p = p.display()
        );
        let path = p.join(name);
        fs::write(&path, text).unwrap();
        path
    }

    /// Adds a user key locked with `PASSPHRASE` to the server's accepted
    /// keys; returns the client config that offers only that key.
    pub fn locked_key_config(&self) -> PathBuf {
        let p = self.dir.path();
        run(Command::new("ssh-keygen")
            .args([
                "-q", "-t", "ed25519", "-N", PASSPHRASE, "-C", "locked", "-f",
            ])
            .arg(p.join("locked_key")));
        let public = fs::read(p.join("locked_key.pub")).unwrap();
        fs::OpenOptions::new()
            .append(true)
            .open(p.join("authorized_keys"))
            .unwrap()
            .write_all(&public)
            .unwrap();
        self.write_client_config("config-locked", "known_hosts", "locked_key")
    }

    pub fn config(&self) -> PathBuf {
        self.dir.path().join("config")
    }

    /// The folder the server's files are made in.
    pub fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    pub fn options(&self, config: &Path) -> SshOptions {
        SshOptions {
            config: Some(config.to_path_buf()),
            batch: true,
            program: None,
            askpass: None,
        }
    }

    /// The source for this server, with the folder's config.
    pub fn source(&self) -> SftpFs {
        self.source_with(&self.config())
    }

    pub fn source_with(&self, config: &Path) -> SftpFs {
        SftpFs::new(
            Target {
                user: None,
                host: HOST.into(),
                port: None,
            },
            self.options(config),
        )
    }

    /// The listener's pid.
    pub fn pid(&self) -> u32 {
        self.child.as_ref().unwrap().id()
    }

    /// The sessions' `sshd` processes (everything below the listener).
    pub fn sessions(&self) -> Vec<i32> {
        let mut all = children_of(self.pid() as i32);
        let mut i = 0;
        while i < all.len() {
            let more = children_of(all[i]);
            all.extend(more);
            i += 1;
        }
        all
    }

    pub fn log(&self) -> String {
        fs::read_to_string(self.dir.path().join("sshd.log")).unwrap_or_default()
    }

    /// Kills the server and every session of it.
    pub fn kill(&mut self) {
        for pid in self.sessions() {
            signal(pid, "KILL");
        }
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// `sftp -b -` (OpenSSH's own client) with `commands`; its output.
    pub fn sftp_batch(&self, commands: &str) -> String {
        let mut child = Command::new("sftp")
            .arg("-F")
            .arg(self.config())
            .args(["-b", "-", HOST])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(commands.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "sftp: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        if self.child.is_none() {
            return; // killed already
        }
        for pid in self.sessions() {
            signal(pid, "CONT");
        }
        self.kill();
    }
}

/// A source whose "server" is OpenSSH's `sftp-server` itself, run by a
/// stand-in for `ssh` with logging at DEBUG3 into `dir/sftp.log`: the
/// record of every request the server received.
pub fn recorded_source(dir: &Path) -> SftpFs {
    let wrapper = dir.join("sftp-recorded");
    fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nexec /usr/lib/openssh/sftp-server -e -l DEBUG3 2>>{}/sftp.log\n",
            dir.display()
        ),
    )
    .unwrap();
    fs::set_permissions(&wrapper, fs::Permissions::from_mode(0o755)).unwrap();
    SftpFs::new(
        Target {
            user: None,
            host: "recorded".into(),
            port: None,
        },
        SshOptions {
            config: None,
            batch: true,
            program: Some(wrapper),
            askpass: None,
        },
    )
}

/// The requests `sftp-server -l DEBUG3` logged in `dir/sftp.log`, in order:
/// each request's name, with the open's flags ("open READ").
pub fn requests_in(dir: &Path) -> Vec<String> {
    let log = fs::read_to_string(dir.join("sftp.log")).unwrap_or_default();
    let mut out = Vec::new();
    for l in log.lines() {
        if let Some(at) = l.find("request ") {
            let rest = &l[at + "request ".len()..];
            let Some((number, what)) = rest.split_once(": ") else {
                continue;
            };
            if number.parse::<u32>().is_err() || what.starts_with("sent ") {
                continue;
            }
            let name = what.split_whitespace().next().unwrap_or("").to_string();
            if name != "open" {
                out.push(name);
            }
        } else if let Some(open) = l.strip_prefix("open \"") {
            // open "PATH" flags READ mode 0666
            let flags = open.rsplit_once(" flags ").map_or("", |(_, f)| f);
            let flags = flags.split(" mode").next().unwrap_or(flags);
            out.push(format!("open {flags}"));
        }
    }
    out
}

pub fn signal(pid: i32, sig: &str) {
    let _ = Command::new("kill")
        .arg(format!("-{sig}"))
        .arg(pid.to_string())
        .status();
}

pub fn children_of(parent: i32) -> Vec<i32> {
    let mut out = Vec::new();
    for entry in fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // The fields after the command name's closing parenthesis: state, ppid.
        let Some(after) = stat.rfind(')').map(|i| &stat[i + 2..]) else {
            continue;
        };
        if after
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.parse::<i32>().ok())
            == Some(parent)
        {
            out.push(pid);
        }
    }
    out
}

/// A stand-in for `ssh` that runs OpenSSH's `sftp-server` behind a relay
/// (`python3`): each `readdir` reply (`SSH_FXP_NAME`) is held `delay_ms`
/// before it is passed on (a slow link that streams steadily), and a name
/// in it equal to one of `renames`' first halves is sent as the second (a
/// hostile server's name: `a/b`, `..`, a NUL byte). Requests are logged
/// at DEBUG3 into `dir/sftp.log`, as [`recorded_source`] does.
pub fn relayed_source(dir: &Path, delay_ms: u64, renames: &[(&[u8], &[u8])]) -> SftpFs {
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    let renames: Vec<String> = renames
        .iter()
        .map(|(from, to)| {
            format!(
                "(bytes.fromhex('{}'), bytes.fromhex('{}'))",
                hex(from),
                hex(to)
            )
        })
        .collect();
    let relay = dir.join("relay.py");
    fs::write(
        &relay,
        format!(
            r#"import os, struct, subprocess, sys, threading, time
DELAY = {delay}
RENAMES = dict([{renames}])
log = open({log:?}, "ab")
server = subprocess.Popen(["/usr/lib/openssh/sftp-server", "-e", "-l", "DEBUG3"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log)
def up():
    while True:
        data = os.read(0, 65536)
        if not data:
            break
        server.stdin.write(data)
        server.stdin.flush()
    server.stdin.close()
threading.Thread(target=up, daemon=True).start()
def read(n):
    data = b""
    while len(data) < n:
        more = server.stdout.read(n - len(data))
        if not more:
            return None
        data += more
    return data
def string(body, at):
    (n,) = struct.unpack(">I", body[at:at + 4])
    return body[at + 4:at + 4 + n], at + 4 + n
def attrs_end(body, at):
    (flags,) = struct.unpack(">I", body[at:at + 4])
    at += 4
    if flags & 1: at += 8
    if flags & 2: at += 8
    if flags & 4: at += 4
    if flags & 8: at += 8
    if flags & 0x80000000:
        (count,) = struct.unpack(">I", body[at:at + 4])
        at += 4
        for _ in range(2 * count):
            _, at = string(body, at)
    return at
def rename(body):
    out = bytearray(body[:9])
    (count,) = struct.unpack(">I", body[5:9])
    at = 9
    for _ in range(count):
        name, at = string(body, at)
        longname, at = string(body, at)
        end = attrs_end(body, at)
        name = RENAMES.get(name, name)
        out += struct.pack(">I", len(name)) + name
        out += struct.pack(">I", len(longname)) + longname + body[at:end]
        at = end
    return bytes(out)
out = sys.stdout.buffer
while True:
    head = read(4)
    if head is None:
        break
    body = read(struct.unpack(">I", head)[0])
    if body is None:
        break
    if body[0] == 104:
        time.sleep(DELAY)
        body = rename(body)
    out.write(struct.pack(">I", len(body)) + body)
    out.flush()
"#,
            delay = delay_ms as f64 / 1000.0,
            renames = renames.join(", "),
            log = dir.join("sftp.log").display().to_string(),
        ),
    )
    .unwrap();
    let wrapper = dir.join("sftp-relayed");
    fs::write(
        &wrapper,
        format!("#!/bin/sh\nexec python3 {}\n", relay.display()),
    )
    .unwrap();
    fs::set_permissions(&wrapper, fs::Permissions::from_mode(0o755)).unwrap();
    SftpFs::new(
        Target {
            user: None,
            host: "relayed".into(),
            port: None,
        },
        SshOptions {
            config: None,
            batch: true,
            program: Some(wrapper),
            askpass: None,
        },
    )
}

/// A made-up SFTP server (`fake_sftp_server.py`, Python's standard library
/// only) over a made-up tree, which answers the requests named in
/// `hostile` with raw frames of the test's making: a hostile server. It is
/// put where a face expects `ssh` (a stand-in program, or first on `PATH`):
/// sshd would run it through the login's shell, and the tests log in as
/// `nobody` (whose shell is `nologin`) when they run as root.
#[derive(Default, Clone)]
pub struct FakeServer {
    tree: Vec<(String, serde_json::Value)>,
    hostile: Vec<(&'static str, Vec<u8>)>,
    stderr: u64,
}

/// The folder a [`FakeServer`] says is the login's home.
pub const FAKE_ROOT: &str = "/srv";

impl FakeServer {
    /// A server holding only its root folder, `FAKE_ROOT`.
    pub fn new() -> FakeServer {
        FakeServer::default().dir(FAKE_ROOT)
    }

    pub fn dir(mut self, path: &str) -> FakeServer {
        self.tree
            .push((path.into(), serde_json::json!({ "kind": "dir" })));
        self
    }

    /// A file whose `stat` says `size` and whose reads give `data`.
    pub fn file(mut self, path: &str, size: u64, data: &[u8]) -> FakeServer {
        let hex: String = data.iter().map(|b| format!("{b:02x}")).collect();
        self.tree.push((
            path.into(),
            serde_json::json!({ "kind": "file", "size": size, "data": hex }),
        ));
        self
    }

    /// A link at `path` to `target`.
    pub fn link(mut self, path: &str, target: &str) -> FakeServer {
        self.tree.push((
            path.into(),
            serde_json::json!({ "kind": "link", "target": target }),
        ));
        self
    }

    /// Every `request` (`READDIR`, `STAT`, `READ` ... as SFTP names them)
    /// is answered with `frame`, its length prefix included, with the
    /// request's id written into its bytes 5..9.
    pub fn hostile(mut self, request: &'static str, frame: Vec<u8>) -> FakeServer {
        self.hostile.push((request, frame));
        self
    }

    /// The server first writes `bytes` to its stderr, with no newline.
    pub fn stderr(mut self, bytes: u64) -> FakeServer {
        self.stderr = bytes;
        self
    }

    /// Writes the server, its plan and a stand-in `ssh` that runs it
    /// (whatever its arguments) into `dir` (made readable by `nobody`, who
    /// runs `canopy-mcp` in the tests as root); the stand-in's path.
    pub fn install(&self, dir: &Path) -> PathBuf {
        fs::set_permissions(dir, fs::Permissions::from_mode(0o755)).unwrap();
        let script = dir.join("fake_sftp_server.py");
        fs::write(&script, include_str!("fake_sftp_server.py")).unwrap();
        let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        let plan = serde_json::json!({
            "root": FAKE_ROOT,
            "tree": self.tree.iter().cloned().collect::<serde_json::Map<_, _>>(),
            "hostile": self.hostile.iter().map(|(k, v)| ((*k).to_string(), serde_json::json!(hex(v))))
                .collect::<serde_json::Map<_, _>>(),
            "stderr": self.stderr,
        });
        let plan_path = dir.join("plan.json");
        fs::write(&plan_path, plan.to_string()).unwrap();
        for f in [&script, &plan_path] {
            fs::set_permissions(f, fs::Permissions::from_mode(0o644)).unwrap();
        }
        let bin = dir.join("bin");
        fs::create_dir_all(&bin).unwrap();
        fs::set_permissions(&bin, fs::Permissions::from_mode(0o755)).unwrap();
        let ssh = bin.join("ssh");
        fs::write(
            &ssh,
            format!(
                "#!/bin/sh\nexec /usr/bin/python3 {} {}\n",
                script.display(),
                plan_path.display()
            ),
        )
        .unwrap();
        fs::set_permissions(&ssh, fs::Permissions::from_mode(0o755)).unwrap();
        ssh
    }

    /// Installs the server into `dir`; a `PATH` whose `ssh` runs it.
    pub fn path_env(&self, dir: &Path) -> String {
        let ssh = self.install(dir);
        format!("{}:/usr/bin:/bin", ssh.parent().unwrap().display())
    }

    /// A source whose `ssh` is a stand-in that runs this server.
    pub fn source(&self, dir: &Path) -> SftpFs {
        let wrapper = self.install(dir);
        SftpFs::new(
            Target {
                user: None,
                host: "fake".into(),
                port: None,
            },
            SshOptions {
                config: None,
                batch: true,
                program: Some(wrapper),
                askpass: None,
            },
        )
    }
}

/// An SFTP frame: `body` after its 4-byte length.
pub fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = (body.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(body);
    out
}

/// A `NAME` reply (id 0, which the fake server replaces) that says it
/// holds `claimed` entries and carries the `real` ones (name, file of size 1).
pub fn name_reply(claimed: u32, real: &[&[u8]]) -> Vec<u8> {
    let mut body = vec![104];
    body.extend_from_slice(&0u32.to_be_bytes());
    body.extend_from_slice(&claimed.to_be_bytes());
    for name in real {
        for _ in 0..2 {
            body.extend_from_slice(&(name.len() as u32).to_be_bytes());
            body.extend_from_slice(name);
        }
        body.extend_from_slice(&1u32.to_be_bytes()); // SIZE only
        body.extend_from_slice(&1u64.to_be_bytes());
    }
    frame(&body)
}
