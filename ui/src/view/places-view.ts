// The sidebar: a navigation landmark named Places, with the engine's places
// in groups (folders, bookmarks, devices) and the recent servers. Each place
// is a button: clicking it (or Enter, Space) opens it; Up and Down move
// between them. The open folder's place is marked (`aria-current`). A mount
// says its free space ("12.3 GiB free of 64 GiB") or that it is not
// responding. Labels reach the DOM as text only.

import type { Place } from "../bindings/Place";
import type { PlaceKind } from "../bindings/PlaceKind";
import type { RootSpec } from "../bindings/RootSpec";
import type { Crumb } from "../bindings/Crumb";
import { currentPlace, type PlacesSnapshot, type SpaceState } from "../places";
import { button, el } from "./dom";
import { formatSize } from "./format";
import { icon, type IconName } from "./icons";
import { renderName } from "./name";

const ICONS: Record<PlaceKind, IconName> = {
  home: "home",
  desktop: "folder",
  documents: "folder",
  downloads: "folder",
  music: "folder",
  pictures: "folder",
  videos: "folder",
  templates: "folder",
  public: "folder",
  bookmark: "bookmark",
  root: "drive",
  mount: "drive",
};

/** A size with one decimal below 100 of its unit, without a trailing ".0" ("12.3 GiB", "64 GiB"). */
function spaceSize(bytes: number): string {
  const [n, unit] = formatSize(bytes).split(" ");
  if (bytes < 1024) return `${n} ${unit}`;
  const exact = bytes / 1024 ** Math.min(5, Math.floor(Math.log(bytes) / Math.log(1024)));
  const v = exact < 100 ? Math.round(exact * 10) / 10 : Math.round(exact);
  return `${v} ${unit}`;
}

/** What a mount's free space reads. */
export function spaceWords(s: SpaceState | undefined): string {
  if (!s || s.kind === "asking") return "";
  if (s.kind === "known") return `${spaceSize(s.free)} free of ${spaceSize(s.total)}`;
  return s.error.code === "TIMEOUT" ? "not responding" : "free space unknown";
}

export interface PlacesHost {
  open(root: RootSpec): void;
  bookmarkHere(): void;
}

export class PlacesView {
  readonly element: HTMLElement;
  private readonly body: HTMLElement;
  private shown: { places: PlacesSnapshot; crumbs: readonly Crumb[] | null; servers: readonly string[] } | null = null;

  constructor(private readonly host: PlacesHost) {
    this.body = el("div", { class: "places-body" });
    this.element = el("nav", { class: "places", id: "places", "aria-label": "Places" }, this.body);
    this.element.addEventListener("keydown", (e) => this.onKey(e));
  }

  get collapsed(): boolean {
    return this.element.hidden;
  }

  setCollapsed(collapsed: boolean): void {
    this.element.hidden = collapsed;
  }

  update(places: PlacesSnapshot, crumbs: readonly Crumb[] | null, servers: readonly string[]): void {
    const s = this.shown;
    if (s && s.places === places && s.crumbs === crumbs && s.servers === servers) return;
    this.shown = { places, crumbs, servers };
    const focused = this.body.contains(document.activeElement) ? (document.activeElement as HTMLElement).dataset.key : undefined;
    this.render(places, crumbs, servers);
    if (focused) this.body.querySelector<HTMLElement>(`[data-key="${CSS.escape(focused)}"]`)?.focus();
  }

  private render(snap: PlacesSnapshot, crumbs: readonly Crumb[] | null, servers: readonly string[]): void {
    const p = snap.places;
    const groups: HTMLElement[] = [];
    if (snap.error) groups.push(el("p", { class: "places-error" }, `Places could not be listed: ${snap.error.code}`));
    if (p) {
      const current = crumbs ? currentPlace(p, crumbs) : null;
      const item = (pl: Place, i: string) => this.placeItem(pl, i, pl === current, snap);
      groups.push(this.group("Folders", p.folders.map((pl, i) => item(pl, `f${i}`))));
      const mark = button("Bookmark this folder (Ctrl+D)", { class: "place place-action", "data-key": "bookmark-here" }, icon("bookmark"), "Bookmark this folder");
      mark.addEventListener("click", () => this.host.bookmarkHere());
      groups.push(this.group("Bookmarks", [...p.bookmarks.map((pl, i) => item(pl, `b${i}`)), el("li", {}, mark)]));
      groups.push(this.group("Devices", p.mounts.map((pl, i) => item(pl, `m${i}`))));
      if (p.problem) groups.push(el("p", { class: "places-error", title: p.problem.message }, `${p.problem.code}: ${p.problem.message}`));
    }
    if (servers.length) {
      groups.push(
        this.group(
          "Servers",
          servers.map((url, i) => {
            const b = el("button", { type: "button", class: "place", "data-key": `s${i}`, "data-kind": "server", title: url }, icon("server"), el("span", { class: "place-label" }, url));
            b.addEventListener("click", () => this.host.open({ text: url }));
            return el("li", {}, b);
          }),
        ),
      );
    }
    this.body.replaceChildren(...groups);
  }

  private group(title: string, items: HTMLElement[]): HTMLElement {
    const id = `places-${title.toLowerCase()}`;
    return el("section", { class: "places-group", "aria-labelledby": id }, el("h2", { class: "places-heading", id }, title), el("ul", { class: "places-list" }, ...items));
  }

  private placeItem(pl: Place, key: string, current: boolean, snap: PlacesSnapshot): HTMLElement {
    const label = el("span", { class: "place-text" }, renderName(pl.label, pl.labelParts, "place-label"));
    const space = pl.mount ? spaceWords(snap.spaces.get(pl.mount)) : "";
    const failed = pl.mount ? snap.spaces.get(pl.mount) : undefined;
    if (space) label.append(el("span", { class: `place-space${space === "not responding" ? " is-dead" : ""}` }, space));
    if (pl.error) label.append(el("span", { class: "place-space is-dead" }, pl.error.code === "TIMEOUT" ? "not responding" : pl.error.code));
    // Named by what it shows (the label and its free space), not by an aria-label.
    const b = el("button", { type: "button", class: "place", "data-key": key, "data-kind": pl.kind }, icon(ICONS[pl.kind]), label);
    const why = failed?.kind === "failed" ? ` (${failed.error.message})` : pl.error ? ` (${pl.error.message})` : "";
    b.title = `${pl.shown}${pl.fsType ? ` · ${pl.fsType}` : ""}${why}`;
    if (current) b.setAttribute("aria-current", "location");
    b.addEventListener("click", () => this.host.open(pl.root));
    return el("li", {}, b);
  }

  /** Up and Down move between the places; Home and End to the first and last. */
  private onKey(e: KeyboardEvent): void {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const all = Array.from(this.body.querySelectorAll<HTMLElement>("button.place"));
    const at = all.indexOf(document.activeElement as HTMLElement);
    if (at < 0) return;
    const to = e.key === "ArrowDown" ? at + 1 : e.key === "ArrowUp" ? at - 1 : e.key === "Home" ? 0 : e.key === "End" ? all.length - 1 : null;
    if (to === null) return;
    e.preventDefault();
    all[Math.max(0, Math.min(all.length - 1, to))]?.focus();
  }
}
