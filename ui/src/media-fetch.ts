// Fetches the one audio or video stream the app opened (`canopy-media:`), range by
// range (the app answers at most MEDIA_RANGE_CAP a request), and joins the
// ranges into a Blob the page's <audio> or <video> plays: WebKitGTK's player reads no
// custom protocol itself. A range that is not the one asked for, or a
// refusal, stops it.

/**
 * The whole stream at `url` as a Blob of type `mime`, or an error. `stillWanted` is asked between ranges;
 * `progress` hears the bytes fetched so far and the stream's size.
 */
export async function fetchStream(url: string, stillWanted: () => boolean, progress: (loaded: number, total: number) => void = () => undefined): Promise<Blob | null> {
  const parts: ArrayBuffer[] = [];
  let next = 0;
  let total = Infinity;
  let type = "";
  while (next < total) {
    if (!stillWanted()) return null;
    const reply = await fetch(url, { headers: { Range: `bytes=${next}-` } });
    if (reply.status !== 206) throw new Error(`the app refused the stream (HTTP ${reply.status})`);
    const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(reply.headers.get("Content-Range") ?? "");
    if (!range || Number(range[1]) !== next) throw new Error("the app answered another range than the one asked for");
    total = Number(range[3]);
    type = reply.headers.get("Content-Type") ?? type;
    const bytes = await reply.arrayBuffer();
    if (bytes.byteLength === 0) throw new Error("the stream answered no bytes");
    parts.push(bytes);
    next += bytes.byteLength;
    progress(next, total);
  }
  return new Blob(parts, { type });
}
