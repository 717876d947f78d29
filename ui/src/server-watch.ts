// Where the connection to the open folder's server stands, asked of the app
// every SERVER_STATE_POLL_MS while a server's folder is open (the answer is
// the app's own record: asking never connects and never waits), and told to
// the view. A local folder asks nothing.

import type { Backend } from "./backend";
import type { ServerState } from "./bindings/ServerState";
import { SERVER_STATE_POLL_MS } from "./limits";

export class ServerWatch {
  private handle: string | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;
  /** Bumped when another folder is followed: answers about the old one are dropped. */
  private seq = 0;

  constructor(
    private readonly backend: Pick<Backend, "serverState">,
    private readonly onState: (state: ServerState | null) => void,
    private readonly every = SERVER_STATE_POLL_MS,
  ) {}

  /** Follows the server `handle` is on (any handle of its folders); null: none. */
  follow(handle: string | null): void {
    if (handle === this.handle) return;
    this.handle = handle;
    this.seq++;
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    if (handle === null) {
      this.onState(null);
      return;
    }
    void this.poll();
    this.timer = setInterval(() => void this.poll(), this.every);
  }

  /** Asks now (after a request that may have changed it). */
  async poll(): Promise<void> {
    const seq = this.seq;
    const handle = this.handle;
    if (handle === null) return;
    try {
      const state = await this.backend.serverState(handle);
      if (seq === this.seq) this.onState(state);
    } catch {
      // Not a server's handle (the folder changed meanwhile): nothing to show.
    }
  }
}
