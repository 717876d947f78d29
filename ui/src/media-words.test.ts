// The PDF, photo, audio and video views' words and kept pages.

import { describe, expect, it } from "vitest";
import { PageCache, audioFacts, codecMissingLine, durationText, gpsLine, loadingLine, pageFromField, pageLabel, pdfFacts, photoFacts, playerCanTry, sandboxNote, videoFacts } from "./media-words";
import type { VideoDetails } from "./bindings/VideoDetails";
import type { FontPreview } from "./bindings/FontPreview";
import { fontFacts, noPhotoPreviewLine, sampleMissingLine, weightText } from "./media-words";

describe("PDF pages", () => {
  it("says where the reader is", () => {
    expect(pageLabel(3, 212)).toBe("page 3 of 212");
    expect(pageLabel(1200, 1500)).toBe("page 1,200 of 1,500");
  });

  it("reads the page field, clamped to the document", () => {
    expect(pageFromField(" 7 ", 212)).toBe(7);
    expect(pageFromField("999", 212)).toBe(212);
    expect(pageFromField("0", 212)).toBeNull();
    expect(pageFromField("-3", 212)).toBeNull();
    expect(pageFromField("2.5", 212)).toBeNull();
    expect(pageFromField("abc", 212)).toBeNull();
    expect(pageFromField("99999999999999999999", 212)).toBeNull();
  });

  it("keeps at most three rendered pages, the least recently used dropped first", () => {
    const cache = new PageCache<string>();
    cache.put(1, "one");
    cache.put(2, "two");
    cache.put(3, "three");
    expect(cache.get(1)).toBe("one"); // 1 is now the most recent
    cache.put(4, "four");
    expect(cache.size).toBe(3);
    expect(cache.has(2)).toBe(false);
    expect([1, 3, 4].every((p) => cache.has(p))).toBe(true);
  });

  it("lists the facts the document says", () => {
    expect(pdfFacts({ title: "T", author: null, pages: 2, version: "1.7", encrypted: false, networkIsolated: true })).toEqual([
      ["Title", "T"],
      ["Pages", "2"],
      ["PDF version", "1.7"],
    ]);
  });

  it("says when the renderer had the network", () => {
    expect(sandboxNote(true)).toBeNull();
    expect(sandboxNote(false)).toMatch(/network/);
  });
});

describe("photo details", () => {
  it("puts the GPS position in words, south and west as such", () => {
    expect(gpsLine({ latitude: -33.8598333, longitude: 151.2083333, altitude: null })).toBe(
      "This photo carries a GPS location: 33.859833° S, 151.208333° E",
    );
    expect(gpsLine({ latitude: 48.8584, longitude: -2.2945, altitude: 35.4 })).toBe(
      "This photo carries a GPS location: 48.858400° N, 2.294500° W, 35 m",
    );
  });

  it("lists what the photo says and notes an applied orientation", () => {
    const rows = photoFacts({
      hasExif: true,
      camera: "Canon EOS 5D",
      lens: null,
      exposure: "1/125 s · f/2.8",
      takenAt: "2024-05-01 14:03:22",
      width: 4000,
      height: 3000,
      orientation: 6,
      orientationLabel: "turned 90° clockwise",
      gps: null,
    });
    expect(rows).toEqual([
      ["Camera", "Canon EOS 5D"],
      ["Exposure", "1/125 s · f/2.8"],
      ["Taken", "2024-05-01 14:03:22"],
      ["Dimensions", "4000 × 3000 px"],
      ["Orientation", "turned 90° clockwise (applied to the preview)"],
    ]);
  });
});

describe("audio details", () => {
  it("puts tags and properties in words", () => {
    expect(durationText(187_400)).toBe("3:07");
    expect(durationText(3_723_000)).toBe("1:02:03");
    expect(
      audioFacts({
        title: "Gymnopédie No. 1",
        artist: "Erik Satie",
        album: null,
        track: 1,
        trackTotal: 3,
        durationMs: 1000,
        codec: "WAV",
        bitRateKbps: 128,
        sampleRate: 8000,
        channels: 1,
        cover: null,
        coverTooLarge: false,
      }),
    ).toEqual([
      ["Title", "Gymnopédie No. 1"],
      ["Artist", "Erik Satie"],
      ["Track", "1 of 3"],
      ["Duration", "0:01"],
      ["Format", "WAV · 128 kbit/s · 8 kHz · mono"],
    ]);
  });
});

describe("render errors", () => {
  it("say what a renderer's limit means, not a folder's", async () => {
    const { renderSentence } = await import("./view/pdf-view");
    expect(renderSentence("TIMEOUT")).toMatch(/page took too long to render/);
    expect(renderSentence("TIMEOUT")).not.toMatch(/folder/);
    expect(renderSentence("TOOL_MISSING")).toMatch(/not installed/);
  });
});

const phoneClip: VideoDetails = {
  container: "MP4",
  durationMs: 83_400,
  width: 1080,
  height: 1920,
  videoCodec: "H.265 (HEVC) (Main)",
  frameRate: "29.97 fps",
  audioCodec: "AAC · 48 kHz · stereo",
  bitRateKbps: 15_210,
  playMime: 'video/mp4; codecs="hvc1.1.6.L93.B0, mp4a.40.2"',
  networkIsolated: true,
};

describe("video details", () => {
  it("lists duration, resolution, both codecs and the container", () => {
    expect(videoFacts(phoneClip)).toEqual([
      ["Duration", "1:23"],
      ["Resolution", "1080 × 1920 px"],
      ["Video", "H.265 (HEVC) (Main) · 29.97 fps"],
      ["Audio", "AAC · 48 kHz · stereo"],
      ["Container", "MP4 · 15,210 kbit/s"],
    ]);
  });

  it("says what a video lacks instead of leaving a row out", () => {
    const silent = { ...phoneClip, durationMs: null, width: null, height: null, videoCodec: null, frameRate: null, audioCodec: null, bitRateKbps: null };
    expect(videoFacts(silent)).toEqual([
      ["Video", "no video stream"],
      ["Audio", "no sound"],
      ["Container", "MP4"],
    ]);
  });

  it("tries to play only what the player does not refuse", () => {
    expect(playerCanTry("probably")).toBe(true);
    expect(playerCanTry("maybe")).toBe(true);
    expect(playerCanTry("")).toBe(false);
    expect(playerCanTry("no")).toBe(false);
  });

  it("names the codecs the player lacks, and says the poster and details stay", () => {
    const line = codecMissingLine(phoneClip);
    expect(line).toMatch(/^This video's codec is not available \(H\.265 \(HEVC\) \(Main\) with AAC\)/);
    expect(line).toMatch(/poster frame and details are shown/);
    expect(codecMissingLine({ ...phoneClip, audioCodec: null })).toMatch(/\(H\.265 \(HEVC\) \(Main\)\):/);
  });

  it("counts the bytes loaded for playback", () => {
    expect(loadingLine(0, 0)).toBe("Loading the video to play it…");
    expect(loadingLine(3 * 1024 * 1024, 12 * 1024 * 1024)).toBe("Loading the video to play it… 3 of 12 MiB");
    expect(loadingLine(1536 * 1024, 2 * 1024 * 1024)).toBe("Loading the video to play it… 1.5 of 2 MiB");
  });

  it("says a poster frame's timeout is the poster's", async () => {
    const { renderSentence } = await import("./view/pdf-view");
    expect(renderSentence("TIMEOUT", "poster frame")).toMatch(/this poster frame took too long to render/);
  });
});

describe("fonts", () => {
  const dejavu: FontPreview = {
    container: "TrueType",
    family: "DejaVu Sans",
    style: "Bold",
    fullName: "DejaVu Sans Bold",
    weight: 700,
    weightTo: null,
    slant: null,
    monospaced: false,
    variable: false,
    namedInstances: 0,
    faces: 1,
    characters: 5777,
    version: "2.370",
    sampleText: "The quick brown fox jumps over the lazy dog\n0123456789",
    sample: null,
    sampleError: null,
    networkIsolated: true,
  };

  it("names a weight on the OpenType scale, and a weight between names by its number", () => {
    expect(weightText(700)).toBe("700 (Bold)");
    expect(weightText(400)).toBe("400 (Regular)");
    expect(weightText(450)).toBe("450");
  });

  it("lists a font's facts, a full name that only repeats family and style left out", () => {
    expect(fontFacts(dejavu)).toEqual([
      ["Family", "DejaVu Sans"],
      ["Style", "Bold"],
      ["Weight", "700 (Bold)"],
      ["Characters", "5,777"],
      ["Format", "TrueType"],
      ["Version", "2.370"],
    ]);
  });

  it("says a variable font's range, its instances, a collection's faces and a slant", () => {
    const rows = fontFacts({ ...dejavu, style: "Italic", fullName: "Inter Variable Italic", family: "Inter", weight: 100, weightTo: 900, variable: true, namedInstances: 18, faces: 2, slant: "italic", monospaced: true, container: "font collection", characters: null, version: null });
    expect(rows).toEqual([
      ["Family", "Inter"],
      ["Style", "Italic"],
      ["Full name", "Inter Variable Italic"],
      ["Weight", "100 (Thin) to 900 (Black) (variable)"],
      ["Slant", "italic"],
      ["Spacing", "monospaced"],
      ["Variable", "yes, 18 named instances"],
      ["Format", "font collection · 2 faces (the first is shown)"],
    ]);
  });

  it("says why a sample is missing by its code, never the font's own words", () => {
    expect(sampleMissingLine({ code: "RENDER_FAILED", message: "hb-view crashed (signal 11)" })).toContain("the renderer failed on this font");
    expect(sampleMissingLine({ code: "TIMEOUT", message: "" })).toContain("took too long");
    expect(sampleMissingLine({ code: "TOOL_MISSING", message: "" })).toContain("not installed");
  });
});

describe("photos the window cannot decode", () => {
  it("says there is no preview, and why", () => {
    expect(noPhotoPreviewLine(null, { code: "RENDER_FAILED", message: "" })).toBe("No preview for this format: no decoder here could draw it.");
    expect(noPhotoPreviewLine("HEIF", { code: "TOOL_MISSING", message: "" })).toBe("No preview for this HEIF photo: the renderer's decoder is not installed.");
  });
});
