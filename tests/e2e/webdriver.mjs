// A small W3C WebDriver client over fetch (keep-alive), enough to drive
// Canopy's real window through tauri-driver. Every wait has a liveness
// timeout; none of them asserts speed.

import { LAUNCH_VAR, alive, describe, killMarked, marked } from "./procs.mjs";

const ELEMENT = "element-6066-11e4-a52e-4f735466cecf";

/** A liveness bound for the window to open (the session to start): a launch that hangs never does. */
export const OPEN_WITHIN_MS = 90000;
/** How long an app may take to end after its session: it saves its view on the way. */
const END_WITHIN_MS = 10000;

/**
 * Waits until no process of the launch `launch` still runs (the driver stops
 * the pid it started, Canopy's supervisor, and the program behind it ends a
 * moment later, saving its view on the way: what it left is read only once
 * it is gone). One that has not ended within END_WITHIN_MS is killed, with
 * what it started.
 */
async function appGone(launch) {
  const prefix = `${LAUNCH_VAR}=${launch}\0`;
  let pids = marked(prefix);
  const deadline = Date.now() + END_WITHIN_MS;
  while (pids.length && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
    pids = pids.filter(alive);
  }
  if (pids.length) {
    const running = describe(pids);
    const left = await killMarked(prefix);
    console.log(`launch ${launch} had not ended ${END_WITHIN_MS} ms after its session: killed ${running.join("; ")}${left.length ? `; still there (a call stuck in the kernel): ${left.join(", ")}` : ""}`);
  }
}

export const Key = {
  Enter: "\uE007",
  Escape: "\uE00C",
  Tab: "\uE004",
  Backspace: "\uE003",
  ArrowLeft: "\uE012",
  ArrowUp: "\uE013",
  ArrowRight: "\uE014",
  ArrowDown: "\uE015",
  Home: "\uE011",
  End: "\uE010",
  PageUp: "\uE00E",
  PageDown: "\uE00F",
  F5: "\uE035",
  Alt: "\uE00A",
  Control: "\uE009",
  Shift: "\uE008",
};

export class WebDriverError extends Error {}

/** Sessions started and not yet quit. */
const open = new Set();

/**
 * Quits every session still open: the driver holds one session at a time,
 * so one a failed test left open would refuse every later file's window.
 */
export async function quitAll() {
  for (const s of [...open]) await s.quit();
}

async function request(base, method, path, body, { signal } = {}) {
  let lastErr;
  // A fresh connection can be reset while the driver starts up; retry briefly.
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const res = await fetch(base + path, {
        method,
        headers: body === undefined ? {} : { "Content-Type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
      const text = await res.text();
      const json = text ? JSON.parse(text) : {};
      if (!res.ok) {
        const v = json.value ?? {};
        throw new WebDriverError(`${method} ${path}: ${res.status} ${v.error ?? ""} ${v.message ?? text}`);
      }
      return json.value;
    } catch (err) {
      if (err instanceof WebDriverError || signal?.aborted) throw err;
      lastErr = err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw lastErr;
}

export class Session {
  constructor(base, id) {
    this.base = base;
    this.id = id;
  }

  /**
   * Starts `application` (a launcher that marks its environment with
   * `LAUNCH_VAR=launch`) through the driver. A window that has not opened
   * within `openWithin` (OPEN_WITHIN_MS) never will (a launch that hangs):
   * the app and what it started are killed, and the launch fails saying so.
   */
  static async start(base, application, args = [], launch, openWithin = OPEN_WITHIN_MS) {
    const capabilities = { alwaysMatch: { browserName: "wry", "tauri:options": { application, args } } };
    let value;
    try {
      value = await request(base, "POST", "/session", { capabilities }, { signal: AbortSignal.timeout(openWithin) });
    } catch (err) {
      const running = describe(marked(`${LAUNCH_VAR}=${launch}\0`));
      const left = await killMarked(`${LAUNCH_VAR}=${launch}\0`);
      const what = err?.name === "TimeoutError" ? `the window did not open within ${openWithin / 1000} s (a launch that hangs)` : `the session did not start: ${err?.message ?? err}`;
      throw new Error(`launch ${launch}: ${what}; killed ${running.length ? running.join("; ") : "nothing (no process of it was running)"}${left.length ? `; still there: ${left.join(", ")}` : ""}`, { cause: err });
    }
    const s = new Session(base, value.sessionId);
    s.launch = launch;
    open.add(s);
    return s;
  }

  cmd(method, path, body) {
    return request(this.base, method, `/session/${this.id}${path}`, body);
  }

  /** Ends the session, and waits until its app has ended (killing it if it does not, see appGone). */
  async quit() {
    open.delete(this);
    try {
      await this.cmd("DELETE", "");
    } catch {
      /* already gone */
    }
    if (this.launch) await appGone(this.launch);
  }

  /** Runs `fn` (a function's source) in the page with `args`; returns its result. */
  exec(fn, ...args) {
    return this.cmd("POST", "/execute/sync", { script: `return (${fn}).apply(null, arguments);`, args });
  }

  /** Runs an async function in the page; resolves with its result. */
  execAsync(fn, ...args) {
    const script = `const done = arguments[arguments.length - 1];
      Promise.resolve((${fn}).apply(null, Array.prototype.slice.call(arguments, 0, -1)))
        .then((v) => done({ ok: v }), (e) => done({ err: String(e && e.stack || e) }));`;
    return this.cmd("POST", "/execute/async", { script, args }).then((r) => {
      if (r && r.err) throw new Error(r.err);
      return r?.ok;
    });
  }

  async find(css) {
    const v = await this.cmd("POST", "/element", { using: "css selector", value: css });
    return v[ELEMENT];
  }

  async findAll(css) {
    const v = await this.cmd("POST", "/elements", { using: "css selector", value: css });
    return v.map((e) => e[ELEMENT]);
  }

  click(elementId) {
    return this.cmd("POST", `/element/${elementId}/click`, {});
  }

  async clickCss(css) {
    return this.click(await this.find(css));
  }

  text(elementId) {
    return this.cmd("GET", `/element/${elementId}/text`);
  }

  type(elementId, text) {
    return this.cmd("POST", `/element/${elementId}/value`, { text });
  }

  /** Presses keys (with optional held modifiers) on whatever has focus. */
  async keys(keys, modifiers = []) {
    const actions = [];
    for (const m of modifiers) actions.push({ type: "keyDown", value: m });
    for (const k of keys) actions.push({ type: "keyDown", value: k }, { type: "keyUp", value: k });
    for (const m of modifiers.slice().reverse()) actions.push({ type: "keyUp", value: m });
    await this.cmd("POST", "/actions", { actions: [{ type: "key", id: "keyboard", actions }] });
    await this.cmd("DELETE", "/actions");
  }

  /** A screenshot as PNG bytes. A tiny animation keeps frames coming so it cannot hang on an idle page. */
  async screenshot() {
    await this.exec(() => {
      let dot = document.getElementById("e2e-heartbeat");
      if (!dot) {
        dot = document.createElement("div");
        dot.id = "e2e-heartbeat";
        dot.style.position = "fixed";
        dot.style.right = "0";
        dot.style.bottom = "0";
        dot.style.width = "1px";
        dot.style.height = "1px";
        dot.style.pointerEvents = "none";
        document.body.append(dot);
        dot.animate([{ opacity: 0.01 }, { opacity: 0.02 }], { duration: 500, iterations: Infinity });
      }
    });
    const b64 = await this.cmd("GET", "/screenshot");
    await this.exec(() => document.getElementById("e2e-heartbeat")?.remove());
    return Buffer.from(b64, "base64");
  }

  /** Polls `fn` in the page until it returns a truthy value; returns that value. */
  async waitFor(fn, { timeout = 20000, what = "condition", args = [] } = {}) {
    const deadline = Date.now() + timeout;
    let last;
    for (;;) {
      last = await this.exec(fn, ...args);
      if (last) return last;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(last)})`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
