// A server's folder through the real window: the tests' own OpenSSH server
// (canopy-sftp's `tests/common`, started by its `test_sshd` example: sshd as
// an unprivileged user on 127.0.0.1 at a free port, keys and a client
// ssh_config in a temporary folder, which the app is given with
// CANOPY_SSH_CONFIG) serves a folder; `canopy sftp://…` opens it, the path
// bar says `host:` and the connection's state, a truncated remote folder
// shows all of itself, a remote text file previews, Open…/Reveal/live
// refresh are shown as not available, a server that freezes shows the
// connection lost, then reconnected by the next refresh, and a key locked
// with a passphrase is unlocked from the window's own dialog (ssh runs the
// app's binary as its askpass). Nothing on the
// server changes (its files are compared before and after).

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import {
  REPO,
  diffManifests,
  file,
  launch,
  manifest,
  previewReady,
  rightClick,
  rowSelector,
  saveScreenshot,
  scrollToRow,
  selectRow,
  waitForRow,
} from "./harness.mjs";

const TOOL = path.join(REPO, "target/debug/examples/test_sshd");
/** Screenshots for the note, besides the suite's own folder. */
const SCREENS = process.env.CANOPY_E2E_SCREENS ?? null;

let server;
let lines;
let manifestBefore;

/** Starts the test server and reads its first line (where it is). */
async function startServer() {
  if (!fs.existsSync(TOOL)) throw new Error(`build the test server first: cargo build -p canopy-sftp --example test_sshd (${TOOL})`);
  const child = spawn(TOOL, [], { stdio: ["pipe", "pipe", "inherit"] });
  lines = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const first = await lines.next();
  if (first.done) throw new Error("the test server ended before saying where it is");
  return { child, ...JSON.parse(first.value) };
}

/** Sends `stop`, `cont` or `kill` to the test server and waits for its `ok`. */
async function tell(command) {
  server.child.stdin.write(`${command}\n`);
  const answer = await lines.next();
  assert.equal(answer.value, "ok", `the test server did ${command}`);
}

async function shot(s, name) {
  const saved = await saveScreenshot(s, name);
  if (SCREENS) {
    fs.mkdirSync(SCREENS, { recursive: true });
    fs.copyFileSync(saved, path.join(SCREENS, `${name}.png`));
  }
}

before(async () => {
  server = await startServer();
  const data = server.data;
  file(path.join(data, "notes.txt"), "hello over sftp\nsecond line\n");
  file(path.join(data, "sub/inner.txt"), "inside\n");
  for (let i = 1; i <= 150; i++) file(path.join(data, "many", `f${String(i).padStart(3, "0")}.txt`), `file ${i}\n`);
  manifestBefore = manifest(data);
});

after(async () => {
  if (server) {
    server.child.stdin.end();
    await new Promise((r) => server.child.once("exit", r));
  }
});

const url = () => `sftp://${server.host}${server.data}`;
const env = () => ({ CANOPY_SSH_CONFIG: server.config });

describe("a server's folder in the window", () => {
  let s;
  before(async () => {
    s = await launch([url()], { env: env() });
  });
  after(async () => s?.quit());

  test("canopy sftp://… opens the folder: host: before the path, and connected", async () => {
    await scrollToRow(s, "notes.txt");
    const bar = await s.waitFor(
      () => {
        const c = document.querySelector(".connection");
        return c && !c.hidden && c.dataset.phase === "connected"
          ? { server: document.querySelector(".crumb-server")?.textContent, crumbs: Array.from(document.querySelectorAll(".crumbs .crumb")).map((b) => b.textContent), state: c.textContent, title: c.title }
          : null;
      },
      { what: "the connection to show connected" },
    );
    assert.equal(bar.server, `${server.host}:`, "the server first, as host:");
    assert.equal(bar.crumbs.at(-1), path.basename(server.data));
    assert.equal(bar.state, "connected");
    assert.equal(bar.title, `Connected to ${server.host}`);
    const status = await s.exec(() => document.querySelector(".status-bar").textContent);
    assert.match(status, /On a server: Open…, Reveal and live refresh are not available/);
    await shot(s, "remote-open");
  });

  test("a truncated remote folder shows its exact count and all of itself", async () => {
    const sel = await scrollToRow(s, "many");
    const badge = await s.exec((q) => document.querySelector(`${q} .badge-more`)?.textContent, sel);
    assert.equal(badge, "50 more", "100 of 150 shown, the rest counted exactly");
    await s.clickCss(`${sel} [data-action="show-all"]`);
    const last = await s.waitFor(() => {
      const r = Array.from(document.querySelectorAll('[role="treeitem"]')).find((x) => x.querySelector(".name")?.textContent === "f150.txt");
      if (r) return { posinset: r.getAttribute("aria-posinset"), setsize: r.getAttribute("aria-setsize") };
      document.querySelector(".tree-scroller").scrollTop += 400;
      return null;
    }, { what: "f150.txt to scroll into view" });
    assert.deepEqual(last, { posinset: "150", setsize: "150" });
    await s.exec(() => (document.querySelector(".tree-scroller").scrollTop = 0));
  });

  test("a remote text file previews; Reveal and Open… are shown, not offered", async () => {
    await selectRow(s, "notes.txt");
    const text = await previewReady(s, "pre.code .line");
    assert.match(text, /hello over sftp/);
    const actions = await s.exec(() =>
      Array.from(document.querySelectorAll(".preview-actions button")).map((b) => ({ action: b.dataset.action, disabled: b.disabled, title: b.title })),
    );
    const reveal = actions.find((a) => a.action === "reveal");
    const open = actions.find((a) => a.action === "open-default");
    assert.equal(reveal.disabled, true);
    assert.match(reveal.title, /not available for a file on a server/);
    assert.equal(open.disabled, true);
    assert.equal(actions.find((a) => a.action === "copy-path").disabled, false, "Copy path copies the sftp:// URL");
    await shot(s, "remote-preview");
  });

  test("the context menu says what is not available on a server", async () => {
    const sel = await rowSelector(s, "notes.txt");
    await rightClick(s, `${sel} .name`);
    const items = await s.waitFor(
      () => {
        const menu = document.querySelector('[role="menu"]');
        return menu ? Array.from(menu.querySelectorAll('[role="menuitem"]')).map((b) => ({ text: b.textContent, disabled: b.getAttribute("aria-disabled") === "true" })) : null;
      },
      { what: "the context menu" },
    );
    for (const action of ["Open…", "Reveal", "Live refresh"]) {
      const item = items.find((i) => i.text.startsWith(action));
      assert.ok(item, `${action} is in the menu: ${JSON.stringify(items)}`);
      assert.equal(item.disabled, true, `${action} is disabled`);
      assert.match(item.text, /not available for a file on a server/);
    }
    await shot(s, "remote-menu");
    // Escape closes it (a press on the status bar could land on the menu itself,
    // which opens over the window's bottom edge).
    await s.exec(() => document.querySelector('[role="menu"] [role="menuitem"]').dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true })));
    await s.waitFor(() => document.querySelector('[role="menu"]') === null, { what: "the menu to close" });
  });

  test("a server that freezes shows the connection lost; the next refresh reconnects", async () => {
    await tell("stop");
    await s.clickCss('.toolbar button[title="Refresh (F5)"]');
    const lost = await s.waitFor(
      () => {
        const c = document.querySelector(".connection");
        // Lost for good: the call left waiting gave up, and ssh was ended.
        return c?.dataset.phase === "lost" && c.title.includes("did not answer") ? { text: c.textContent, title: c.title, live: document.querySelector(".live-notice")?.textContent } : null;
      },
      { what: "the connection to show lost", timeout: 30000 },
    );
    assert.equal(lost.text, "connection lost");
    assert.match(lost.title, /The next action reconnects/);
    assert.match(lost.live, /Connection to .* lost/);
    await shot(s, "remote-lost");
    await tell("cont");
    // The refresh that timed out may still be settling: refresh until the listing is back.
    await s.waitFor(() => !document.querySelector(".spinner:not([hidden])"), { what: "the refresh to end", timeout: 30000 });
    await s.clickCss('.toolbar button[title="Refresh (F5)"]');
    const back = await s.waitFor(
      () => {
        const c = document.querySelector(".connection");
        return c?.dataset.phase === "connected" ? c.title : null;
      },
      { what: "the connection to show connected again", timeout: 30000 },
    );
    assert.match(back, /reconnected 1×/);
    await scrollToRow(s, "notes.txt");
  });

  test("nothing on the server changed", () => {
    assert.deepEqual(diffManifests(manifestBefore, manifest(server.data)), []);
  });
});

describe("a server's folder in the dark theme", () => {
  test("looks right", async () => {
    const d = await launch([url()], { theme: "dark", env: env() });
    try {
      await d.waitFor(() => document.querySelector(".connection")?.dataset.phase === "connected", { what: "connected" });
      await selectRow(d, "notes.txt");
      await previewReady(d, "pre.code .line");
      await shot(d, "remote-dark");
    } finally {
      await d.quit();
    }
  });
});

describe("the Connect to server dialog", () => {
  test("opens a server's folder from its fields", async () => {
    const s = await launch([server.data], { env: env() });
    try {
      await s.clickCss('[data-action="connect-server"]');
      await s.waitFor(() => document.querySelector('[role="dialog"][aria-label="Connect to server"]') !== null, { what: "the dialog" });
      const type = async (name, text) => {
        const el = await s.find(`[data-field="${name}"]`);
        await s.type(el, text);
      };
      await type("host", server.host);
      await type("path", path.join(server.data, "sub"));
      await shot(s, "remote-connect-dialog");
      await s.clickCss('[data-action="connect"]');
      await waitForRow(s, "inner.txt");
      const crumb = await s.exec(() => document.querySelector(".crumb-server")?.textContent);
      assert.equal(crumb, `${server.host}:`);
    } finally {
      await s.quit();
    }
  });
});

describe("a server whose host key is not known", () => {
  test("is refused, with its fingerprint and the ssh command that adds it", async () => {
    const dir = path.dirname(server.config);
    const empty = path.join(dir, "e2e_empty_known_hosts");
    fs.writeFileSync(empty, "");
    const strict = path.join(dir, "e2e-config-unknown");
    fs.writeFileSync(strict, fs.readFileSync(server.config, "utf8").replace(/UserKnownHostsFile \S+/, `UserKnownHostsFile ${empty}`));
    const s = await launch([url()], { env: { CANOPY_SSH_CONFIG: strict } });
    try {
      const error = await s.waitFor(() => {
        const e = document.querySelector(".open-error");
        return e && !e.hidden ? { code: e.querySelector(".error-code")?.textContent, text: e.textContent } : null;
      }, { what: "the refusal" });
      assert.equal(error.code, "HOST_KEY_UNKNOWN");
      assert.match(error.text, /SHA256:[A-Za-z0-9+/]+/, "the fingerprint");
      assert.match(error.text, /`ssh canopy-test`/, "the one command that adds it");
      assert.equal(fs.readFileSync(empty, "utf8"), "", "nothing was added to known_hosts");
      await shot(s, "remote-host-key-unknown");
    } finally {
      await s.quit();
    }
  });
});

describe("a key locked with a passphrase", () => {
  const dialog = () =>
    document.querySelector("[data-secret-dialog]")
      ? {
          id: document.querySelector("[data-secret-dialog]").dataset.secretDialog,
          server: document.querySelector("[data-secret-server]").textContent,
          prompt: document.querySelector("[data-secret-prompt]").textContent,
          type: document.querySelector('[data-field="secret"]').type,
          focused: document.activeElement?.dataset.field ?? null,
        }
      : null;
  const answer = async (s, text) => {
    const field = await s.find('[data-field="secret"]');
    await s.type(field, text);
    await s.clickCss('[data-action="send-secret"]');
  };

  test("asks in the window: a wrong passphrase is asked again, the right one opens the folder", async () => {
    const s = await launch([url()], { env: { CANOPY_SSH_CONFIG: server.lockedConfig }, ready: () => document.querySelector("[data-secret-dialog]") !== null });
    try {
      const first = await s.waitFor(dialog, { what: "the passphrase dialog" });
      assert.equal(first.server, server.host);
      assert.match(first.prompt, /passphrase for key .*locked_key/);
      assert.equal(first.type, "password");
      assert.equal(first.focused, "secret", "the field has the focus");
      const asked = await s.exec(() => document.querySelector("[data-open-target]")?.textContent);
      assert.equal(asked, url(), "the path bar says what is being opened");
      await shot(s, "remote-passphrase");
      await answer(s, "not it");
      const second = await s.waitFor(
        (firstId) => {
          const d = document.querySelector("[data-secret-dialog]");
          return d && d.dataset.secretDialog !== firstId ? d.dataset.secretDialog : null;
        },
        { what: "ssh to ask again", args: [first.id] },
      );
      assert.ok(second);
      await answer(s, server.passphrase);
      await s.waitFor(() => document.querySelector(".connection")?.dataset.phase === "connected", { what: "connected" });
      await scrollToRow(s, "notes.txt");
      assert.equal(await s.exec(() => document.querySelector("[data-secret-dialog]")), null, "the dialog is gone");
    } finally {
      await s.quit();
    }
  });

  test("Cancel ends the login: AUTH_FAILED, with ssh's reason", async () => {
    const s = await launch([url()], { env: { CANOPY_SSH_CONFIG: server.lockedConfig }, ready: () => document.querySelector("[data-secret-dialog]") !== null });
    try {
      await s.waitFor(dialog, { what: "the passphrase dialog" });
      await s.clickCss('[data-action="cancel-secret"]');
      const error = await s.waitFor(() => {
        const e = document.querySelector(".open-error");
        return e && !e.hidden ? { code: e.querySelector(".error-code")?.textContent, text: e.textContent } : null;
      }, { what: "the refusal" });
      assert.equal(error.code, "AUTH_FAILED");
      assert.match(error.text, /Permission denied/);
      assert.equal(await s.exec(() => document.querySelector("[data-open-target]")?.textContent), url(), "what failed to open, to edit and try again");
      await shot(s, "remote-auth-cancelled");
      assert.equal(await s.exec(() => document.querySelector("[data-secret-dialog]")), null);
    } finally {
      await s.quit();
    }
  });
});
