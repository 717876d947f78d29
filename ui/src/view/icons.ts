// Inline SVG icons built element by element (Linux desktops often lack emoji
// fonts, and no markup string is ever parsed).

const SVG = "http://www.w3.org/2000/svg";

const PATHS = {
  folder: "M2 4.5A1.5 1.5 0 0 1 3.5 3h3l1.5 1.5h4.5A1.5 1.5 0 0 1 14 6v5.5a1.5 1.5 0 0 1-1.5 1.5h-9A1.5 1.5 0 0 1 2 11.5z",
  file: "M4 1.5h5L12.5 5v9a.5.5 0 0 1-.5.5H4a.5.5 0 0 1-.5-.5V2a.5.5 0 0 1 .5-.5zM9 1.5V5h3.5",
  symlink: "M6 10l4-4M7 5.5h3.5V9M4 3.5h3M3.5 4v8.5h8.5V9",
  special: "M8 2.5a5.5 5.5 0 1 0 0 11 5.5 5.5 0 0 0 0-11zM8 5.5v3M8 10.5v.5",
  chevron: "M6 3.5l4.5 4.5L6 12.5",
  back: "M10 3L5 8l5 5",
  forward: "M6 3l5 5-5 5",
  up: "M3 10l5-5 5 5",
  refresh: "M13 8a5 5 0 1 1-1.5-3.5M13 2.5v3h-3",
  open: "M2 4.5A1.5 1.5 0 0 1 3.5 3h3l1.5 1.5h4.5A1.5 1.5 0 0 1 14 6v1H5l-3 6z",
  warning: "M8 2l6.5 11.5h-13zM8 6.5v3.5M8 11.5v.5",
  edit: "M10.5 2.5l3 3L6 13H3v-3z",
  root: "M8 2v12M3 7l5-5 5 5",
} as const;

export type IconName = keyof typeof PATHS;

export function icon(name: IconName, label?: string): SVGSVGElement {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 16 16");
  svg.setAttribute("class", `icon icon-${name}`);
  if (label) {
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", label);
  } else {
    svg.setAttribute("aria-hidden", "true");
  }
  const path = document.createElementNS(SVG, "path");
  path.setAttribute("d", PATHS[name]);
  svg.append(path);
  return svg;
}
