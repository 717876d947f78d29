// The hex + ASCII view of binary bytes, as plain text lines.

export function decodeBase64(b64: string): Uint8Array {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** "00000010  48 65 6c 6c 6f 0a 00 ff  ...  |Hello...|" lines, 16 bytes each. */
export function hexLines(bytes: Uint8Array, baseOffset: number): string[] {
  const lines: string[] = [];
  for (let i = 0; i < bytes.length; i += 16) {
    const row = bytes.subarray(i, i + 16);
    const hex: string[] = [];
    let ascii = "";
    for (let j = 0; j < 16; j++) {
      const b = row[j];
      if (b === undefined) {
        hex.push("  ");
        continue;
      }
      hex.push(b.toString(16).padStart(2, "0"));
      ascii += b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : ".";
    }
    const off = (baseOffset + i).toString(16).padStart(8, "0");
    lines.push(`${off}  ${hex.slice(0, 8).join(" ")}  ${hex.slice(8).join(" ")}  |${ascii}|`);
  }
  return lines;
}
