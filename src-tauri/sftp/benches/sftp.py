#!/usr/bin/env python3
"""canopy-list sftp:// against OpenSSH's own client, on loopback, same run.

Starts a private sshd (Debian's openssh-server) on 127.0.0.1 at a free port,
as `nobody` when run as root (as the tests do), with keys and an ssh_config in
a temporary folder (the machine's own SSH setup is neither read nor changed),
makes a folder of 200,000 empty files, and times, each --runs times:

  * `canopy-list sftp://host/DIR --ssh-config CFG` (the first page of 500
    with the exact total, connection set-up included);
  * `echo 'ls -1f DIR' | sftp -b - host > /dev/null` (OpenSSH's client
    listing the same folder, connection set-up included): the baseline;
  * `gio mount` + `gio list sftp://… | wc -l` + `gio mount -u` (gvfs, as
    Nautilus reads a server) when gvfs-backends is installed: one private
    D-Bus session for the whole run (as a desktop has), its gvfsd started by
    D-Bus with an `ssh` first on its PATH that adds `-F CONFIG`, and HOME and
    the XDG folders in the temporary folder (nothing of the machine's own
    setup is read or changed);
  * `sshfs` + `ls -f | wc -l` when sshfs is installed;
  * `canopy-list DIR` (the local listing of the same folder): the RSS baseline.

Peak RSS is /usr/bin/time's %M: the largest single process of the command's
tree (for sftp:// that is canopy-list itself or its ssh, whichever is larger).
Round trips per page: the SFTP requests a second sshd's sftp-server logged
(-l DEBUG3, a root login so its log can be redirected) for one run of each.
It asserts nothing: the figures go in the notes.

    cargo build --release --locked -p canopy-list
    python3 src-tauri/sftp/benches/sftp.py [--runs 5] [--entries 200000]
"""
import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "../../.."))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def keygen(path):
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", path], check=True)


class Server:
    """One sshd on 127.0.0.1; `subsystem` is its sftp line."""

    def __init__(self, tmp, name, user, subsystem, as_root):
        self.dir = os.path.join(tmp, name)
        os.makedirs(self.dir)
        os.chmod(self.dir, 0o755)
        d = self.dir
        keygen(f"{d}/host_key")
        keygen(f"{d}/user_key")
        shutil.copy(f"{d}/user_key.pub", f"{d}/authorized_keys")
        open(f"{d}/sshd.log", "w").close()
        self.port = free_port()
        with open(f"{d}/sshd_config", "w") as f:
            f.write(
                f"Port {self.port}\nListenAddress 127.0.0.1\nHostKey {d}/host_key\nPidFile none\n"
                f"AuthorizedKeysFile {d}/authorized_keys\nStrictModes no\nUsePAM no\n"
                "PasswordAuthentication no\nKbdInteractiveAuthentication no\n"
                f"PermitRootLogin prohibit-password\nSubsystem sftp {subsystem}\n"
            )
        argv = ["/usr/sbin/sshd", "-D", "-f", f"{d}/sshd_config", "-E", f"{d}/sshd.log"]
        if os.geteuid() == 0 and not as_root:
            for f in ("host_key", "authorized_keys", "sshd.log"):
                shutil.chown(f"{d}/{f}", "nobody", "nogroup")
            argv = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--groups=shadow"] + argv
        if as_root:
            os.makedirs("/run/sshd", exist_ok=True)
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL)
        until = time.time() + 10
        while f"Server listening on 127.0.0.1 port {self.port}" not in open(f"{d}/sshd.log").read():
            if time.time() > until or self.proc.poll() is not None:
                sys.exit(f"sshd did not start: {open(f'{d}/sshd.log').read()}")
            time.sleep(0.02)
        pub = open(f"{d}/host_key.pub").read().split()
        with open(f"{d}/known_hosts", "w") as f:
            f.write(f"[127.0.0.1]:{self.port} {pub[0]} {pub[1]}\n")
        self.config = f"{d}/config"
        with open(self.config, "w") as f:
            f.write(
                f"Host bench\n  HostName 127.0.0.1\n  Port {self.port}\n  User {user}\n"
                f"  IdentityFile {d}/user_key\n  IdentitiesOnly yes\n  IdentityAgent none\n"
                f"  UserKnownHostsFile {d}/known_hosts\n  GlobalKnownHostsFile /dev/null\n"
                "  StrictHostKeyChecking yes\n  BatchMode yes\n  ControlMaster no\n  LogLevel ERROR\n"
            )

    def stop(self):
        self.proc.kill()
        self.proc.wait()


def run(argv):
    """Wall seconds and peak RSS (KiB) of one run, output discarded."""
    if isinstance(argv, str):
        argv = ["sh", "-c", argv]
    fd, report = tempfile.mkstemp()
    os.close(fd)
    start = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", report] + argv,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"failed: {argv}: {done.stderr.decode(errors='replace')}")
    with open(report) as f:
        rss = int(f.read().split()[-1])
    os.remove(report)
    return wall, rss


def gvfs_session(tmp, config):
    """A private D-Bus session whose gvfsd reaches the bench server: (address,
    process, runtime folder), or None when gvfs's sftp backend or dbus-daemon is missing."""
    if not (os.path.exists("/usr/libexec/gvfsd-sftp") and shutil.which("dbus-daemon") and shutil.which("gio")):
        print("not measured (not installed): gio list (apt install gvfs-backends)", file=sys.stderr)
        return None
    home = os.path.join(tmp, "gvfs-home")
    wrap = os.path.join(home, "bin")
    os.makedirs(wrap)
    with open(os.path.join(wrap, "ssh"), "w") as f:
        f.write(f'#!/bin/sh\nexec /usr/bin/ssh -F {config} "$@"\n')
    os.chmod(os.path.join(wrap, "ssh"), 0o755)
    # gvfsd-sftp puts ssh's ControlPath socket here: a socket's path must stay under 108 bytes.
    runtime = tempfile.mkdtemp(prefix="g", dir="/tmp")
    env = dict(os.environ, PATH=wrap + ":" + os.environ["PATH"], HOME=home,
               XDG_CACHE_HOME=f"{home}/cache", XDG_CONFIG_HOME=f"{home}/config",
               XDG_DATA_HOME=f"{home}/data", XDG_RUNTIME_DIR=runtime, GIO_USE_VOLUME_MONITOR="unix")
    daemon = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address=1"],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return daemon.stdout.readline().strip(), daemon, runtime


def count_requests(log):
    """SFTP requests in an sftp-server -l DEBUG3 log, by name."""
    counts = {}
    for line in open(log, errors="replace"):
        at = line.find("request ")
        if at < 0:
            continue
        number, _, what = line[at + 8:].partition(": ")
        if not number.isdigit() or what.startswith("sent "):
            continue
        name = what.split()[0] if what.split() else "?"
        counts[name] = counts.get(name, 0) + 1
    return counts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--entries", type=int, default=200_000)
    ap.add_argument("--bin", default=os.path.join(REPO, "target/release/canopy-list"))
    args = ap.parse_args()
    cl = args.bin
    if not os.path.exists(cl):
        sys.exit("build it first: cargo build --release --locked -p canopy-list")
    tmp = tempfile.mkdtemp(prefix="canopy-sftp-bench")
    os.chmod(tmp, 0o755)
    big = os.path.join(tmp, "big")
    os.makedirs(big)
    for i in range(args.entries):
        open(os.path.join(big, f"file_{i:06d}.txt"), "w").close()
    user = "nobody" if os.geteuid() == 0 else os.environ.get("USER", "")
    server = Server(tmp, "sshd", user, "internal-sftp", as_root=False)
    url = f"sftp://bench{big}"
    cases = [
        ("canopy-list sftp:// (first page, exact total)", [cl, url, "--ssh-config", server.config], "sftp ls -1f"),
        ("sftp ls -1f", f"echo 'ls -1f {big}' | sftp -F {server.config} -b - bench", None),
        ("sftp ls -1 | wc -l (sorted, counted)",
         f"echo 'ls -1 {big}' | sftp -F {server.config} -b - bench | wc -l", None),
    ]
    mnt = os.path.join(tmp, "mnt")
    if shutil.which("sshfs"):
        os.makedirs(mnt)
        cases.append(("sshfs + ls -f | wc -l (mount included)",
                      f"sshfs -F {server.config} bench:{big} {mnt} && ls -f {mnt} | wc -l; fusermount -u {mnt}",
                      "canopy-list sftp:// (first page, exact total)"))
    session = gvfs_session(tmp, server.config)
    if session:
        gio = f"sftp://bench{big}"
        cases.append(("gio mount + list | wc -l (gvfs, mount included)",
                      ["env", f"DBUS_SESSION_BUS_ADDRESS={session[0]}", "sh", "-c",
                       f"gio mount {gio} && gio list {gio} | wc -l; gio mount -u {gio}"],
                      "canopy-list sftp:// (first page, exact total)"))
    cases.append(("canopy-list DIR (local, same folder)", [cl, big], None))
    # One warm-up each (the server's dentry cache, the binaries' pages).
    for _, argv, _ in cases:
        run(argv)
    wall = {c[0]: [] for c in cases}
    rss = {c[0]: [] for c in cases}
    for _ in range(args.runs):
        for label, argv, _ in cases:
            w, m = run(argv)
            wall[label].append(w)
            rss[label].append(m)
    # What the first page said of the folder: its total, exact or a lower bound.
    import json
    page = json.loads(subprocess.run([cl, url, "--ssh-config", server.config, "--json"],
                                     capture_output=True, check=True).stdout)
    folder = page["root"]["folder"]
    said = (f"total {folder['total']:,}" + (" (a lower bound: the request's time ran out)"
                                              if folder.get("countIsLowerBound") else " (exact)"))
    server.stop()
    if session:
        session[1].kill()
        session[1].wait()
        shutil.rmtree(session[2], ignore_errors=True)
    med = {k: statistics.median(v) for k, v in wall.items()}
    print(f"{args.entries:,} entries on loopback, median of {args.runs} runs")
    print(f"{'command':48} {'median ms':>10} {'ratio':>24} {'peak RSS KiB':>13}")
    for label, _, base in cases:
        ratio = f"{med[label] / med[base]:.2f}x {base}" if base else ""
        print(f"{label:48} {med[label] * 1000:10.0f} {ratio:>24} {max(rss[label]):13}")
    local = max(rss["canopy-list DIR (local, same folder)"])
    remote = max(rss["canopy-list sftp:// (first page, exact total)"])
    print(f"peak RSS, sftp:// minus local: {(remote - local) / 1024:+.1f} MiB")
    print(f"canopy-list sftp:// first page: {len(folder['entries'])} entries, {said}")

    # Round trips: a logging sftp-server behind a root login (its stderr redirected by the shell).
    if os.geteuid() == 0:
        log = os.path.join(tmp, "sftp.log")
        logging = Server(tmp, "sshd-log", "root",
                         f"/usr/lib/openssh/sftp-server -e -l DEBUG3 2>>{log}", as_root=True)
        for label, argv in [("canopy-list sftp://", [cl, f"sftp://bench{big}", "--ssh-config", logging.config]),
                            ("sftp ls -1f", f"echo 'ls -1f {big}' | sftp -F {logging.config} -b - bench")]:
            open(log, "w").close()
            run(argv)
            time.sleep(0.3)
            counts = count_requests(log)
            total = sum(counts.values())
            print(f"SFTP requests, {label}: {total} ({', '.join(f'{k} {v}' for k, v in sorted(counts.items()))})")
        logging.stop()
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
