# A hostile SFTP server for the tests: it speaks SFTP v3 on stdin and stdout,
# as sftp-server does under sshd (or under a stand-in for ssh), over a made-up
# tree, and answers the requests the plan names with the plan's raw bytes.
#
#   python3 fake_sftp_server.py PLAN.json
#
# PLAN.json:
#   "root":   the folder `realpath .` answers (the login's home);
#   "tree":   {path: {"kind": "dir"|"file"|"link", "size": N, "data": hex,
#              "target": path}}; a file's size is what STAT says, its data
#              what READ gives (they may disagree: that is the point);
#   "hostile": {request name: hex}: the whole frame (length included) sent
#              instead of the reply; its bytes 5..9 (the request id) are
#              replaced by the request's own id when "keep_id" is not set;
#   "keep_id": true to send the hostile frames exactly as given;
#   "stderr":  bytes written to stderr, with no newline, before serving.
import json
import os
import struct
import sys

plan = json.load(open(sys.argv[1]))
ROOT = plan.get("root", "/srv")
TREE = plan.get("tree", {})
HOSTILE = {k: bytes.fromhex(v) for k, v in plan.get("hostile", {}).items()}
KEEP_ID = plan.get("keep_id", False)

if plan.get("stderr"):
    chunk = b"x" * 65536
    left = plan["stderr"]
    while left > 0:
        os.write(2, chunk[:left])
        left -= len(chunk)

NAMES = {1: "INIT", 3: "OPEN", 4: "CLOSE", 5: "READ", 7: "LSTAT", 8: "FSTAT",
         11: "OPENDIR", 12: "READDIR", 16: "REALPATH", 17: "STAT", 19: "READLINK"}
OK, EOF, NO_SUCH_FILE, FAILURE, UNSUPPORTED = 0, 1, 2, 4, 8
MODE = {"dir": 0o040755, "file": 0o100644, "link": 0o120777}

inp = sys.stdin.buffer
out = sys.stdout.buffer
handles = {}


def read(n):
    data = b""
    while len(data) < n:
        more = inp.read(n - len(data))
        if not more:
            sys.exit(0)
        data += more
    return data


def string(b):
    return struct.pack(">I", len(b)) + b


def send(body):
    out.write(struct.pack(">I", len(body)) + body)
    out.flush()


def status(rid, code, text=b""):
    send(bytes([101]) + struct.pack(">II", rid, code) + string(text) + string(b""))


def attrs(entry):
    size = entry.get("size", len(bytes.fromhex(entry.get("data", ""))))
    return struct.pack(">IQIIIII", 0xF, size, 0, 0, MODE[entry["kind"]], 0, 1_700_000_000)


def normal(path):
    parts = []
    for p in path.split("/"):
        if p in ("", "."):
            continue
        if p == "..":
            if parts:
                parts.pop()
            continue
        parts.append(p)
    return "/" + "/".join(parts)


def absolute(path):
    return normal(path if path.startswith("/") else ROOT + "/" + path)


def follow(path):
    """The entry at path, links followed (at most 32); None when none."""
    for _ in range(32):
        entry = TREE.get(path)
        if entry is None or entry["kind"] != "link":
            return entry
        target = entry["target"]
        path = normal(target if target.startswith("/") else os.path.dirname(path) + "/" + target)
    return None


def names(rid, entries):
    body = bytes([104]) + struct.pack(">II", rid, len(entries))
    for name, entry in entries:
        body += string(name.encode()) + string(name.encode()) + attrs(entry)
    send(body)


def serve(kind, rid, body):
    def text(at):
        (n,) = struct.unpack(">I", body[at:at + 4])
        return body[at + 4:at + 4 + n], at + 4 + n

    if kind == 16:  # REALPATH
        path, _ = text(0)
        names(rid, [(absolute(path.decode()), {"kind": "dir"})])
    elif kind in (7, 17):  # LSTAT, STAT
        path, _ = text(0)
        path = absolute(path.decode())
        entry = TREE.get(path) if kind == 7 else follow(path)
        if entry is None:
            status(rid, NO_SUCH_FILE, b"No such file")
        else:
            send(bytes([105]) + struct.pack(">I", rid) + attrs(entry))
    elif kind == 19:  # READLINK
        path, _ = text(0)
        entry = TREE.get(absolute(path.decode()))
        if entry is None or entry["kind"] != "link":
            status(rid, NO_SUCH_FILE, b"No such file")
        else:
            names(rid, [(entry["target"], {"kind": "file", "size": 0})])
    elif kind in (3, 11):  # OPEN, OPENDIR
        path, _ = text(0)
        path = absolute(path.decode())
        entry = follow(path)
        if entry is None:
            status(rid, NO_SUCH_FILE, b"No such file")
            return
        handle = str(len(handles)).encode()
        handles[handle] = [path, False]
        send(bytes([102]) + struct.pack(">I", rid) + string(handle))
    elif kind == 12:  # READDIR
        handle, _ = text(0)
        path, done = handles.get(handle, [None, True])
        if done:
            status(rid, EOF, b"End of file")
            return
        handles[handle][1] = True
        inside = [(p[len(path) + 1:], e) for p, e in sorted(TREE.items())
                  if os.path.dirname(p) == path and p != path]
        names(rid, inside)
    elif kind == 8:  # FSTAT
        handle, _ = text(0)
        path, _ = handles.get(handle, [None, True])
        send(bytes([105]) + struct.pack(">I", rid) + attrs(follow(path)))
    elif kind == 5:  # READ
        handle, at = text(0)
        offset, length = struct.unpack(">QI", body[at:at + 12])
        path, _ = handles.get(handle, [None, True])
        data = bytes.fromhex(follow(path).get("data", ""))[offset:offset + length]
        if not data:
            status(rid, EOF, b"End of file")
        else:
            send(bytes([103]) + struct.pack(">I", rid) + string(data))
    elif kind == 4:  # CLOSE
        status(rid, OK)
    else:
        status(rid, UNSUPPORTED, b"Operation unsupported")


while True:
    (length,) = struct.unpack(">I", read(4))
    packet = read(length)
    kind = packet[0]
    if kind == 1:  # INIT: no extensions, so no `limits` request follows
        reply = bytes([2]) + struct.pack(">I", 3)
        if "INIT" in HOSTILE:
            out.write(HOSTILE["INIT"])
            out.flush()
        else:
            send(reply)
        continue
    (rid,) = struct.unpack(">I", packet[1:5])
    name = NAMES.get(kind)
    if name in HOSTILE:
        frame = bytearray(HOSTILE[name])
        if not KEEP_ID and len(frame) >= 9:
            frame[5:9] = struct.pack(">I", rid)
        out.write(bytes(frame))
        out.flush()
        continue
    serve(kind, rid, packet[5:])
