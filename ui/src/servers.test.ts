import { afterEach, describe, expect, it, vi } from "vitest";
import { DirectoryController } from "./directory-controller";
import { FakeBackend, settle, type FakeNode } from "./fake-backend";
import { RECENT_SERVERS_MAX } from "./limits";
import { phaseWords, rememberServer, serverUrl } from "./servers";
import { ServerWatch } from "./server-watch";

const form = (f: Partial<{ host: string; user: string; port: string; path: string }>) => ({ host: "", user: "", port: "", path: "", ...f });

describe("the Connect to server dialog's URL", () => {
  it("is made of the server, user, port and folder, the folder percent-encoded as the engine does", () => {
    expect(serverUrl(form({ host: "files.example", user: "ann", port: "2222", path: "/srv/my data" }))).toEqual({
      url: "sftp://ann@files.example:2222/srv/my%20data",
    });
    expect(serverUrl(form({ host: "box" }))).toEqual({ url: "sftp://box" });
    expect(serverUrl(form({ host: "box", path: "src" }))).toEqual({ url: "sftp://box/~/src" });
    expect(serverUrl(form({ host: "::1", port: "22" }))).toEqual({ url: "sftp://[::1]:22" });
    expect(serverUrl(form({ host: " box ", path: "/a#b?c" }))).toEqual({ url: "sftp://box/a%23b%3Fc" });
  });

  it("refuses what ssh would read as an option, a password, a bad port and control characters", () => {
    for (const bad of [
      form({}),
      form({ host: "-oProxyCommand=touch x" }),
      form({ host: "-x" }),
      form({ host: "box", user: "-l" }),
      form({ host: "box", user: "ann:secret" }),
      form({ host: "box", user: "ann@evil" }),
      form({ host: "box", port: "0" }),
      form({ host: "box", port: "65536" }),
      form({ host: "box", port: "22x" }),
      form({ host: "box", path: "/a\nb" }),
      form({ host: "a b" }),
    ]) {
      const made = serverUrl(bad);
      expect("error" in made, JSON.stringify(bad)).toBe(true);
    }
  });
});

describe("recent servers", () => {
  it("keep the newest first, once each, at most RECENT_SERVERS_MAX", () => {
    let recent: string[] = [];
    for (let i = 0; i < RECENT_SERVERS_MAX + 3; i++) recent = rememberServer(recent, `sftp://h${i}`, RECENT_SERVERS_MAX);
    recent = rememberServer(recent, "sftp://h5", RECENT_SERVERS_MAX);
    expect(recent.length).toBe(RECENT_SERVERS_MAX);
    expect(recent[0]).toBe("sftp://h5");
    expect(recent.filter((u) => u === "sftp://h5").length).toBe(1);
    expect(recent[1]).toBe(`sftp://h${RECENT_SERVERS_MAX + 2}`);
  });
});

describe("connection words", () => {
  it("say each phase, and why a connection was lost", () => {
    const s = { server: "ann@box", reconnects: 0 };
    expect(phaseWords({ ...s, phase: "connecting" })).toEqual({ text: "Connecting to ann@box…", tone: "busy" });
    expect(phaseWords({ ...s, phase: "connected" }).tone).toBe("ok");
    expect(phaseWords({ ...s, phase: "connected", reconnects: 2 }).text).toContain("reconnected 2×");
    expect(phaseWords({ ...s, phase: "reconnecting" }).text).toBe("Reconnecting to ann@box…");
    const lost = phaseWords({ ...s, phase: "lost", message: "not responding: no answer for over 2 s" });
    expect(lost.tone).toBe("lost");
    expect(lost.text).toContain("not responding: no answer for over 2 s");
    expect(lost.text).toContain("The next action reconnects");
  });
});

function serverTree(): FakeNode {
  return {
    name: "data",
    kind: "folder",
    children: [
      { name: "sub", kind: "folder", children: [{ name: "x", kind: "file" }] },
      { name: "notes.txt", kind: "file" },
    ],
  };
}

describe("a server's folder in the controller", () => {
  it("is never watched, and opening it by URL remembers the server in the saved view", async () => {
    const fake = new FakeBackend(serverTree(), "sftp://ann@box/srv/data");
    const c = new DirectoryController(fake);
    c.setRecentServers(["sftp://old"]);
    expect(await c.open({ text: "sftp://ann@box/srv/data" })).toBe(true);
    await settle();
    expect(fake.watchCalls.every((folders) => folders.length === 0), JSON.stringify(fake.watchCalls)).toBe(true);
    expect(c.recentServers).toEqual(["sftp://ann@box/srv/data", "sftp://old"]);
    expect(fake.remembered.at(-1)?.servers).toEqual(["sftp://ann@box/srv/data", "sftp://old"]);
  });

  it("a local folder is watched and remembers the servers it was given", async () => {
    const fake = new FakeBackend(serverTree(), "/r");
    const c = new DirectoryController(fake);
    c.setRecentServers(["sftp://old"]);
    await c.open({ handle: "/r" });
    await settle();
    expect(fake.watching[0], "a local folder is watched, root first").toBe("/r");
    expect(c.recentServers).toEqual(["sftp://old"]);
    expect(fake.remembered.at(-1)?.servers).toEqual(["sftp://old"]);
  });
});

describe("the server watch", () => {
  afterEach(() => vi.useRealTimers());

  it("asks while a server's folder is open, drops answers about the folder left, and stops", async () => {
    vi.useFakeTimers();
    const fake = new FakeBackend(serverTree());
    const seen: (string | null)[] = [];
    const watch = new ServerWatch(fake, (s) => seen.push(s ? s.phase : null), 1000);
    watch.follow("h1");
    await vi.advanceTimersByTimeAsync(0);
    expect(fake.serverCalls).toEqual(["h1"]);
    fake.serverAnswer = { server: "box", phase: "lost", message: "gone", reconnects: 0 };
    await vi.advanceTimersByTimeAsync(1000);
    expect(seen).toEqual(["connected", "lost"]);
    watch.follow(null);
    expect(seen.at(-1)).toBeNull();
    await vi.advanceTimersByTimeAsync(5000);
    expect(fake.serverCalls.length).toBe(2);
  });
});
