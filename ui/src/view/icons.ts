// Icons as CSS masks over SVG files shipped with the UI (ui/public/icons):
// one plain element per icon, no emoji (Linux desktops often lack emoji
// fonts) and no SVG markup built at run time.

export type IconName =
  | "folder"
  | "file"
  | "archive"
  | "symlink"
  | "special"
  | "chevron"
  | "back"
  | "forward"
  | "up"
  | "refresh"
  | "open"
  | "warning"
  | "edit"
  | "root"
  | "sizes"
  | "home"
  | "bookmark"
  | "drive"
  | "server"
  | "sidebar"
  | "grid"
  | "list"
  | "find";

export function icon(name: IconName, label?: string): HTMLElement {
  const span = document.createElement("span");
  span.className = `icon icon-${name}`;
  if (label) {
    span.setAttribute("role", "img");
    span.setAttribute("aria-label", label);
  } else {
    span.setAttribute("aria-hidden", "true");
  }
  return span;
}
