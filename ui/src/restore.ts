// The remembered view: what the window reports to remember, and opening a
// view again (at start, or after the order or the ignore toggle changed).
//
// Promises: a remembered view is re-listed like any other (cap, page and
// budget; never "Show all"), each remembered folder by its own sub-query as
// soon as its parent is there, so a slow one delays nothing else; folders
// that vanished are dropped. The remembered view holds the folder, the
// view's settings (the engine's `ListSettings`, without a filter: a filter
// belongs to a folder, not to the view), expanded folders and selection.

import type { Backend } from "./backend";
import type { ListSettings } from "./bindings/ListSettings";
import type { SavedView } from "./bindings/SavedView";
import type { RootSpec } from "./bindings/RootSpec";
import { RECENT_SERVERS_MAX, SAVED_EXPANDED_MAX } from "./limits";
import { rememberServer } from "./servers";
import { expandedFolders, findNode, type TreeState } from "./tree-state";

/** What restoring needs of the controller. */
export interface RestoreHost {
  state(): TreeState | null;
  generation(): number;
  open(spec: RootSpec, opts: { select?: string | null; history?: "push" | "none" }): Promise<boolean>;
  expand(handle: string): Promise<void>;
  /** Collapses every expanded folder (under `under`, or anywhere) not in `keep`. */
  keepExpanded(keep: ReadonlySet<string>, under?: string | null): void;
  /** Asks the view to scroll the selection into view. */
  revealSelection(): void;
}

/**
 * Opens `folder` and expands `expanded` again, each by its own sub-query as
 * soon as its parent is there. Returns false when the folder itself cannot
 * be opened (the caller decides what to open instead).
 */
export async function openExpanded(
  host: RestoreHost,
  folder: RootSpec,
  expanded: readonly string[],
  selected: string | null,
  history: "push" | "none",
): Promise<boolean> {
  const ok = await host.open(folder, { select: selected, history });
  if (!ok || !host.state()) return false;
  const keep = new Set(expanded);
  host.keepExpanded(keep);
  const tried = new Set<string>();
  const generation = host.generation();
  const round = async (): Promise<void> => {
    const t = host.state();
    if (!t || generation !== host.generation()) return;
    const ready = expanded.filter((h) => {
      if (tried.has(h)) return false;
      const hit = findNode(t, h);
      return hit !== null && !hit.node.expanded;
    });
    for (const h of ready) tried.add(h);
    await Promise.all(
      ready.map(async (h) => {
        await host.expand(h);
        if (host.state() && generation === host.generation()) host.keepExpanded(keep, h);
        await round();
      }),
    );
  };
  await round();
  if (generation === host.generation() && host.state()?.selected && findNode(host.state()!, host.state()!.selected!)) host.revealSelection();
  return true;
}

/**
 * The view to remember for `tree` under `settings`. A filter is never
 * remembered: it belongs to one folder, and a restored view opens unfiltered.
 */
export function viewOf(tree: TreeState, settings: ListSettings, expanded: readonly string[], servers: readonly string[] = []): SavedView {
  const { filter: _perFolder, ...kept } = settings;
  return {
    folder: tree.root.handle,
    ...kept,
    expanded: expanded.slice(0, SAVED_EXPANDED_MAX),
    selected: tree.selected,
    ...(servers.length ? { servers: servers.slice(0, RECENT_SERVERS_MAX) } : {}),
  };
}

/** Reports the view to remember whenever it changes (at most once per change). */
export class ViewMemory {
  private followed = "";
  /** The servers connected to lately (`sftp://` URLs), newest first. */
  private recent: string[] = [];
  private last: { tree: TreeState; settings: ListSettings } | null = null;

  constructor(private readonly backend: Backend) {}

  get servers(): readonly string[] {
    return this.recent;
  }

  /** The recent servers as the saved view had them (at start). */
  setServers(servers: readonly string[]): void {
    this.recent = servers.slice(0, RECENT_SERVERS_MAX);
  }

  /** A server was connected to: it goes first, and the view is remembered again. */
  noteServer(url: string): void {
    this.recent = rememberServer(this.recent, url, RECENT_SERVERS_MAX);
    if (this.last) this.follow(this.last.tree, this.last.settings, null, true);
  }

  /** `expanded`: the tree's expanded folders when already computed, else null. */
  follow(tree: TreeState, settings: ListSettings, expanded: string[] | null, force = false): void {
    this.last = { tree, settings };
    const key = `${tree.root.handle}\n${JSON.stringify(settings)}\n${tree.selected ?? ""}`;
    if (!expanded && !force && key === this.followed) return;
    this.followed = key;
    const view = viewOf(tree, settings, expanded ?? expandedFolders(tree), this.recent);
    void this.backend.rememberView(view).catch(() => undefined);
  }
}
