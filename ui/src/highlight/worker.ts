// The colour worker: syntax colouring and markdown parsing, off the window's
// thread. One request at a time; the page stops it (terminate) when a
// request overruns its time budget or the file is no longer shown.

import { colourCode } from "./colour";
import { renderMarkdownBlocks } from "./markdown-blocks";
import type { ColourReply, ColourRequest } from "./protocol";

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<ColourRequest>) => void) | null;
  postMessage(reply: ColourReply): void;
};

scope.onmessage = (e) => {
  const req = e.data;
  if (req.kind === "code") {
    scope.postMessage({ id: req.id, kind: "code", tree: colourCode(req.text, req.language) });
  } else {
    scope.postMessage({ id: req.id, kind: "markdown", ...renderMarkdownBlocks(req) });
  }
};
