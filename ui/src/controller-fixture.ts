// What the directory-controller's unit tests share: a controller opened on
// an in-memory tree with the shell's events wired, and the names a folder
// has loaded. Test support only; the app never imports it.

import { DirectoryController } from "./directory-controller";
import { FakeBackend, settle } from "./fake-backend";
import { findFolder } from "./tree-state";

/** A controller on `fake`, opened at `/r` with live events wired, after its first replies. */
export async function openController(fake: FakeBackend) {
  const c = new DirectoryController(fake);
  await fake.listenShell((e) => c.onShellEvent(e));
  await c.open({ handle: "/r" });
  await settle();
  return { c, fake, state: () => c.state! };
}

/** The names of the loaded entries of `folder`, in order. */
export function childNames(c: DirectoryController, folder: string): string[] {
  return findFolder(c.state!, folder)!.chunks.flatMap((ch) => ch.nodes.map((n) => n.entry.name));
}
