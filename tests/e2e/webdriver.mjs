// A small W3C WebDriver client over fetch (keep-alive), enough to drive
// Canopy's real window through tauri-driver. Every wait has a liveness
// timeout; none of them asserts speed.

import fs from "node:fs";

const ELEMENT = "element-6066-11e4-a52e-4f735466cecf";

/**
 * Waits (10 s at most, then goes on) until no process started with
 * `XDG_CONFIG_HOME=configHome` still runs. The driver stops the pid it started,
 * Canopy's supervisor, and the program behind it ends a moment later, saving
 * its view on the way: what it left is read only once it is gone.
 */
async function appGone(configHome) {
  const needle = `XDG_CONFIG_HOME=${configHome}\0`;
  const running = (pid) => {
    try {
      if (!fs.readFileSync(`/proc/${pid}/environ`).includes(needle)) return false;
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "latin1");
      return !["Z", "X"].includes(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0]);
    } catch {
      return false;
    }
  };
  const deadline = Date.now() + 10000;
  while (Date.now() < deadline && fs.readdirSync("/proc").some((p) => /^\d+$/.test(p) && running(p))) {
    await new Promise((r) => setTimeout(r, 20));
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

async function request(base, method, path, body) {
  let lastErr;
  // A fresh connection can be reset while the driver starts up; retry briefly.
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const res = await fetch(base + path, {
        method,
        headers: body === undefined ? {} : { "Content-Type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      const json = text ? JSON.parse(text) : {};
      if (!res.ok) {
        const v = json.value ?? {};
        throw new WebDriverError(`${method} ${path}: ${res.status} ${v.error ?? ""} ${v.message ?? text}`);
      }
      return json.value;
    } catch (err) {
      if (err instanceof WebDriverError) throw err;
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

  static async start(base, application, args = []) {
    const value = await request(base, "POST", "/session", {
      capabilities: {
        alwaysMatch: { browserName: "wry", "tauri:options": { application, args } },
      },
    });
    return new Session(base, value.sessionId);
  }

  cmd(method, path, body) {
    return request(this.base, method, `/session/${this.id}${path}`, body);
  }

  async quit() {
    try {
      await this.cmd("DELETE", "");
    } catch {
      /* already gone */
    }
    if (this.configHome) await appGone(this.configHome);
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
