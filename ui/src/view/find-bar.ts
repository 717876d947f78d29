// The preview's find bar (`role="search"`, Ctrl+F): finds text in the lines
// shown, case-insensitively, steps through the matches with Enter /
// Shift+Enter or the arrows, and scrolls the text (never the window) to each.
// It sits in the pane's fixed header, so it never scrolls away.

import { FIND_DEBOUNCE_MS } from "../limits";
import { button, el } from "./dom";

export function buildFindBar(head: HTMLElement, body: HTMLElement): HTMLElement {
  const input = el("input", { type: "search", "aria-label": "Find in preview", placeholder: "Find" });
  const count = el("span", { class: "muted find-count" });
  const prev = button("Previous match", { class: "icon-only" }, "↑");
  const next = button("Next match", { class: "icon-only" }, "↓");
  const close = button("Close find", { class: "icon-only" }, "×");
  const bar = el("div", { class: "find-bar", role: "search" }, input, count, prev, next, close);
  let hits: { line: HTMLElement; index: number }[] = [];
  let at = -1;
  const search = () => {
    hits = [];
    at = -1;
    const q = input.value.toLocaleLowerCase();
    if (q) {
      for (const line of body.querySelectorAll<HTMLElement>("pre.code .line")) {
        const text = (line.textContent ?? "").toLocaleLowerCase();
        for (let i = text.indexOf(q); i >= 0; i = text.indexOf(q, i + q.length)) hits.push({ line, index: i });
      }
    }
    go(1);
  };
  const go = (step: number) => {
    if (hits.length === 0) {
      count.textContent = input.value ? "no matches" : "";
      return;
    }
    at = (at + step + hits.length) % hits.length;
    count.textContent = `${at + 1} of ${hits.length}`;
    const hit = hits[at]!;
    selectInLine(hit.line, hit.index, input.value.length);
    // Scroll the text only, never the window.
    const box = body.getBoundingClientRect();
    const lineBox = hit.line.getBoundingClientRect();
    body.scrollTop += lineBox.top - box.top - box.height / 2;
  };
  // Search once typing pauses: a long file is not rescanned per keystroke.
  let timer: ReturnType<typeof setTimeout> | undefined;
  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(search, FIND_DEBOUNCE_MS);
  });
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter") go(e.shiftKey ? -1 : 1);
    else if (e.key === "Escape") bar.hidden = true;
    else return;
    e.preventDefault();
  });
  prev.addEventListener("click", () => go(-1));
  next.addEventListener("click", () => go(1));
  close.addEventListener("click", () => (bar.hidden = true));
  // In the pane's fixed header, so it never scrolls away with the text.
  head.append(bar);
  return bar;
}

/**
 * Marks `length` characters from `index` within a line (a span around them,
 * or the whole line when the match crosses highlight tokens). The document
 * selection is left alone so focus stays in the find field.
 */
function selectInLine(line: HTMLElement, index: number, length: number): void {
  for (const old of document.querySelectorAll(".find-match")) {
    const parent = old.parentNode;
    old.replaceWith(...Array.from(old.childNodes));
    parent?.normalize();
  }
  document.querySelectorAll(".line.find-hit").forEach((l) => l.classList.remove("find-hit"));
  line.classList.add("find-hit");
  const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  let pos = 0;
  let started = false;
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const len = n.textContent?.length ?? 0;
    if (!started && index < pos + len) {
      range.setStart(n, index - pos);
      started = true;
    }
    if (started && index + length <= pos + len) {
      range.setEnd(n, index + length - pos);
      const mark = document.createElement("mark");
      mark.className = "find-match";
      try {
        range.surroundContents(mark);
      } catch {
        // The match spans several highlight tokens: the line's mark shows it.
      }
      return;
    }
    pos += len;
  }
}
