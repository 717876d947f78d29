//! The sandbox's promises tried with real children (`sh` and the system's
//! tools): the file only through its descriptor, no other descriptor, killed
//! (with its whole group) at its deadline, on a cancel or past its output
//! cap, no file written, an empty environment, no network, no new
//! privileges, its CPU limit.

use std::io;
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::time::Instant;

use super::*;
use crate::limits::{RENDER_ADDRESS_SPACE, RENDER_CPU_SECONDS, RENDER_DEADLINE, RENDER_OUTPUT_CAP};

fn tool(name: &str) -> PathBuf {
    find_tool(name).unwrap_or_else(|| panic!("{name} is needed by this test"))
}

fn job<'a>(program: &'a Path, args: &[&str], file: Option<&'a File>) -> RenderJob<'a> {
    RenderJob {
        program,
        args: args.iter().map(OsString::from).collect(),
        file,
        max_output: RENDER_OUTPUT_CAP,
        deadline: RENDER_DEADLINE,
        cancel: None,
    }
}

fn sh(script: &str) -> Rendered {
    let bash = tool("bash");
    run(&job(&bash, &["-c", script], None)).expect("bash starts")
}

#[test]
fn child_reads_the_file_through_its_descriptor() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("doc.txt");
    std::fs::write(&path, b"the file's bytes").unwrap();
    let file = File::open(&path).unwrap();
    let cat = tool("cat");
    let done = run(&job(&cat, &[FILE_ARG], Some(&file))).unwrap();
    assert_eq!(done.outcome, RenderOutcome::Exited(0), "{done:?}");
    assert_eq!(done.stdout, b"the file's bytes");
}

#[test]
fn descriptor_keeps_the_first_file_when_the_path_is_swapped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("doc.txt");
    std::fs::write(&path, b"first").unwrap();
    let file = File::open(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", &path).unwrap();
    let cat = tool("cat");
    let done = run(&job(&cat, &[FILE_ARG], Some(&file))).unwrap();
    assert_eq!(
        done.stdout, b"first",
        "the child reads what was opened, not the path now"
    );
}

#[test]
fn child_sees_no_other_descriptor_of_the_app() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("doc.txt");
    std::fs::write(&path, b"x").unwrap();
    let file = File::open(&path).unwrap();
    // A descriptor the app leaked without close-on-exec.
    let leaked_path = dir.path().join("secret");
    std::fs::write(&leaked_path, b"s").unwrap();
    let leaked = File::open(&leaked_path).unwrap();
    // SAFETY (test): clearing the flag on our own descriptor.
    unsafe { libc::fcntl(leaked.as_raw_fd(), libc::F_SETFD, 0) };
    let bash = tool("bash");
    let script = "for f in /proc/$$/fd/*; do readlink $f; done";
    let done = run(&job(&bash, &["-c", script], Some(&file))).unwrap();
    let out = String::from_utf8_lossy(&done.stdout);
    assert!(out.contains("doc.txt"), "the file is there: {out}");
    assert!(
        !out.contains("secret"),
        "nothing else of the app's is: {out}"
    );
}

#[test]
fn child_that_sleeps_forever_is_killed_at_its_deadline() {
    let sleep = tool("sleep");
    let mut j = job(&sleep, &["1000"], None);
    j.deadline = Duration::from_millis(300);
    let started = Instant::now();
    let done = run(&j).unwrap();
    assert_eq!(done.outcome, RenderOutcome::TimedOut);
    assert!(
        started.elapsed() < Duration::from_secs(100),
        "the caller was answered long before the child would have ended"
    );
}

#[test]
fn whole_process_group_is_killed_at_the_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let bash = tool("bash");
    // A grandchild that would outlive its parent, and says its pid.
    let mut j = job(&bash, &["-c", "sleep 1000 & echo $!; wait"], None);
    j.deadline = Duration::from_millis(500);
    let done = run(&j).unwrap();
    assert_eq!(done.outcome, RenderOutcome::TimedOut);
    let pid: i32 = String::from_utf8_lossy(&done.stdout)
        .trim()
        .parse()
        .expect("a pid");
    // SAFETY (test): reaping is not ours; signal 0 asks whether it lives.
    let mut alive = true;
    for _ in 0..200 {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // Gone, or a zombie waiting for init: killed either way.
        if stat.is_empty() || stat.contains(") Z ") {
            alive = false;
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = dir;
    assert!(!alive, "the grandchild {pid} was killed with its group");
}

#[test]
fn cancel_kills_the_job() {
    let sleep = tool("sleep");
    let token = CancelToken::default();
    let mut j = job(&sleep, &["1000"], None);
    j.cancel = Some(&token);
    j.deadline = Duration::from_secs(600);
    let canceller = token.clone();
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        canceller.cancel();
    });
    let done = run(&j).unwrap();
    t.join().unwrap();
    assert_eq!(done.outcome, RenderOutcome::Cancelled);
}

#[test]
fn child_that_closes_its_output_and_lives_on_is_killed_at_its_deadline() {
    // Reading ends when its pipes close; the wait for its exit still
    // has the job's deadline.
    let bash = tool("bash");
    let mut j = job(&bash, &["-c", "exec >&- 2>&-; exec sleep 1000"], None);
    j.deadline = Duration::from_millis(300);
    let done = run(&j).unwrap();
    assert_eq!(done.outcome, RenderOutcome::TimedOut);
}

#[test]
fn cancel_while_waiting_for_the_exit_kills_the_job() {
    let bash = tool("bash");
    let token = CancelToken::default();
    let mut j = job(&bash, &["-c", "exec >&- 2>&-; exec sleep 1000"], None);
    j.cancel = Some(&token);
    j.deadline = Duration::from_secs(600);
    let canceller = token.clone();
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        canceller.cancel();
    });
    let done = run(&j).unwrap();
    t.join().unwrap();
    assert_eq!(done.outcome, RenderOutcome::Cancelled);
}

#[test]
fn exit_status_is_told_after_the_output_closes() {
    // The output closes a moment before the exit can be reaped.
    for code in [0, 3] {
        let done = sh(&format!("echo out; exit {code}"));
        assert_eq!(done.outcome, RenderOutcome::Exited(code));
        assert_eq!(done.stdout, b"out\n");
    }
}

#[test]
fn output_past_the_cap_kills_the_child() {
    let head = tool("head");
    let done = run(&job(&head, &["-c", "20000000", "/dev/zero"], None)).unwrap();
    assert_eq!(done.outcome, RenderOutcome::TooMuchOutput);
    assert_eq!(
        done.stdout.len(),
        RENDER_OUTPUT_CAP,
        "exactly the cap is kept"
    );
}

#[test]
fn named_output_reaches_the_pipe_and_no_file_is_written() {
    let bash = tool("bash");
    let j = job(
        &bash,
        &["-c", "echo picture > out.png; echo other > real.txt"],
        None,
    );
    let done = run_writing_to(&j, "out.png").unwrap();
    assert_eq!(
        String::from_utf8_lossy(&done.stdout),
        "picture\n",
        "what the tool wrote to its named output came through the pipe"
    );
    assert_eq!(
        done.outcome,
        RenderOutcome::Exited(1),
        "a real file is still refused (the write fails): {done:?}"
    );
    assert!(
        String::from_utf8_lossy(&done.stderr).contains("File too large"),
        "{done:?}"
    );
    for bad in ["", "..", "a/b", "/tmp/x"] {
        assert_eq!(
            run_writing_to(&j, bad).unwrap_err().kind(),
            io::ErrorKind::InvalidInput,
            "{bad:?}"
        );
    }
}

#[test]
fn child_cannot_write_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("written");
    let done = sh(&format!(
        "echo data > '{}'; echo data > here; echo went on",
        target.display()
    ));
    assert!(
        !target.exists() || std::fs::metadata(&target).unwrap().len() == 0,
        "RLIMIT_FSIZE 0: nothing written ({done:?})"
    );
    assert_eq!(
        String::from_utf8_lossy(&done.stdout),
        "went on\n",
        "a refused write fails, it does not kill the tool: {done:?}"
    );
    assert_eq!(done.outcome, RenderOutcome::Exited(0));
}

#[test]
fn child_runs_in_an_empty_environment_and_a_private_folder_removed_after() {
    let done = sh("env; pwd");
    assert_eq!(done.outcome, RenderOutcome::Exited(0));
    let out = String::from_utf8(done.stdout).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    // bash sets PWD, SHLVL and _ itself; nothing comes from the app.
    for l in &lines[..lines.len() - 1] {
        let name = l.split('=').next().unwrap();
        assert!(["PWD", "SHLVL", "_"].contains(&name), "inherited {l}");
    }
    let folder = lines.last().unwrap();
    assert!(folder.contains("canopy-render-"), "{folder}");
    assert!(
        !Path::new(folder).exists(),
        "the private folder is removed after the job"
    );
}

#[test]
fn child_has_no_network() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let done = sh(&format!(
        "exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected || echo refused"
    ));
    if done.network_isolated {
        assert_eq!(
            String::from_utf8_lossy(&done.stdout).trim(),
            "refused",
            "{done:?}"
        );
    } else {
        // The kernel refused a namespace: the job says so, and the
        // machine running the tests must allow one for this test to mean anything.
        panic!("no network namespace could be made here: {done:?}");
    }
}

#[test]
fn child_runs_without_new_privileges_and_with_its_limits() {
    let done = sh("grep NoNewPrivs /proc/self/status; ulimit -v; ulimit -t; ulimit -f");
    let out = String::from_utf8(done.stdout).unwrap();
    let words: Vec<&str> = out.split_whitespace().collect();
    assert_eq!(
        words,
        [
            "NoNewPrivs:",
            "1",
            &(RENDER_ADDRESS_SPACE / 1024).to_string(),
            &RENDER_CPU_SECONDS.to_string(),
            "0"
        ]
    );
}

#[test]
fn child_spinning_the_cpu_is_stopped_by_its_cpu_limit() {
    let done = sh("while :; do :; done");
    // RLIMIT_CPU (5 s) and the deadline (5 s) race: either stops it.
    assert!(
        matches!(
            done.outcome,
            RenderOutcome::Signalled(libc::SIGXCPU)
                | RenderOutcome::Signalled(libc::SIGKILL)
                | RenderOutcome::TimedOut
        ),
        "{done:?}"
    );
}

#[test]
fn missing_program_is_an_error() {
    let err = run(&job(Path::new("/nonexistent/tool"), &[], None)).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::NotFound);
}
