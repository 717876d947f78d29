// A context menu: `role="menu"` of `menuitem` buttons at a point, moved
// through with the arrow keys, closed by Escape, a choice, or a press
// elsewhere. It knows nothing of what its items do.

import { button, el } from "./dom";

export interface MenuItem {
  label: string;
  run: () => void;
  /** Why it is not offered here: shown, disabled, with this reason. */
  disabled?: string;
}

export class ContextMenu {
  private menu: HTMLElement | null = null;

  constructor(private readonly label: string) {
    // A press elsewhere closes it, as a desktop menu does. Not a click: the
    // click that may end the very gesture that opened the menu (WebKit's
    // WebDriver sends one after a right button's release) must not close it.
    document.addEventListener(
      "pointerdown",
      (e) => {
        if (this.menu && !this.menu.contains(e.target as Node)) this.close();
      },
      true,
    );
  }

  /** Opens the menu at (x, y); `onEscape` runs when Escape closes it (give focus back). */
  open(items: MenuItem[], x: number, y: number, onEscape: () => void): void {
    this.close();
    if (items.length === 0) return;
    const buttons = items.map((item) => {
      const b = item.disabled
        ? button(item.label, { role: "menuitem", class: "menu-item", "aria-disabled": "true", title: item.disabled }, item.label, el("span", { class: "menu-reason" }, ` — ${item.disabled}`))
        : button(item.label, { role: "menuitem", class: "menu-item" });
      b.addEventListener("click", () => {
        this.close();
        if (!item.disabled) item.run();
      });
      return b;
    });
    const menu = el("div", { role: "menu", class: "context-menu", "aria-label": this.label }, ...buttons);
    menu.style.left = `${x}px`;
    menu.style.top = `${y}px`;
    menu.addEventListener("keydown", (e) => {
      const i = buttons.indexOf(document.activeElement as HTMLButtonElement);
      if (e.key === "Escape") {
        this.close();
        onEscape();
      } else if (e.key === "ArrowDown") buttons[(i + 1) % buttons.length]?.focus();
      else if (e.key === "ArrowUp") buttons[(i - 1 + buttons.length) % buttons.length]?.focus();
      else return;
      e.preventDefault();
    });
    document.body.append(menu);
    this.menu = menu;
    buttons[0]?.focus();
  }

  close(): void {
    this.menu?.remove();
    this.menu = null;
  }
}
