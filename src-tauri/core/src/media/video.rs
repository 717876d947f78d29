//! A video through FFmpeg's tools in the sandbox: `ffprobe` (JSON, the
//! chosen fields only) for its facts, `ffmpegthumbnailer` for a poster
//! frame, whose PNG is decoded and encoded again here at the pane's width
//! (as a PDF's page is), so the window only ever decodes Canopy's own PNG.
//! The container is told by the file's first bytes (`container.rs`), never
//! by its extension; the tools get the open file's `/dev/fd/N`.
//!
//! FFmpeg's demuxers and decoders are the parsers with the longest record
//! of exploits here, which is why they run as Debian's tools in a child
//! with the renderer's limits, not in the app: a hostile or cut file ends
//! as `RENDER_FAILED`, a stuck one as `TIMEOUT`, and the caller is answered
//! either way.
#![forbid(unsafe_code)]

use std::ffi::OsString;
use std::path::Path;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde_json::Value;

use super::container::{video_container, Container};
use super::{descriptor, finished, open, open_with_head, reencode, start_error, tool};
use crate::cancel::CancelToken;
use crate::error::{CanopyError, ErrorCode};
use crate::limits::{
    MAX_RENDER_WIDTH, MIN_RENDER_WIDTH, RENDER_DEADLINE, RENDER_OUTPUT_CAP, VIDEO_FIELD_CHARS,
    VIDEO_HEAD_BYTES, VIDEO_PROBE_CAP,
};
use crate::source::Source;
use crate::sys::sandbox::{self, RenderJob, FILE_ARG};
use crate::wire::{VideoDetails, VideoPoster};

/// The Debian package with `ffprobe`.
const FFMPEG: &str = "ffmpeg";
/// The Debian package (and program) that makes poster frames.
const THUMBNAILER: &str = "ffmpegthumbnailer";

/// What `ffprobe` is asked for: the container's and each stream's facts,
/// no tags (a file's tags can be megabytes of anything).
const PROBE_ENTRIES: &str = "format=format_name,duration,bit_rate:stream=codec_type,codec_name,codec_long_name,profile,level,width,height,sample_rate,channels,avg_frame_rate,r_frame_rate:stream_disposition=attached_pic:stream_side_data=rotation";

fn args(list: &[&str]) -> Vec<OsString> {
    list.iter().map(OsString::from).collect()
}

/// A video's container, duration, resolution and codecs, as `ffprobe`
/// reads them in the sandbox.
///
/// # Errors
/// `TOOL_MISSING` without ffmpeg (its `ffprobe`); `NOT_A_FILE` for anything
/// but a regular file (never opened); `UNSUPPORTED` when its first bytes
/// are no video container; `RENDER_FAILED` when `ffprobe` refuses the file
/// (cut, corrupt) or crashes; `TIMEOUT` when the file or the tool does not
/// answer in time (its child is killed); `CANCELLED`.
pub fn video_details<S: Source>(
    source: &S,
    path: &Path,
    cancel: Option<&CancelToken>,
) -> Result<VideoDetails, CanopyError> {
    let program = tool("ffprobe", FFMPEG)?;
    let (file, head) = open_with_head(source, path, VIDEO_HEAD_BYTES)?;
    let container = video_container(&head).ok_or_else(|| {
        CanopyError::new(
            ErrorCode::Unsupported,
            "this file's first bytes are no video container Canopy reads",
        )
    })?;
    let done = sandbox::run(&RenderJob {
        program: &program,
        args: args(&[
            "-v",
            "error",
            "-print_format",
            "json",
            "-show_entries",
            PROBE_ENTRIES,
            FILE_ARG,
        ]),
        file: Some(descriptor(&*file)?),
        max_output: VIDEO_PROBE_CAP,
        deadline: RENDER_DEADLINE,
        cancel,
    })
    .map_err(|e| start_error("ffprobe", e))?;
    let done = finished("ffprobe", done)?;
    let mut details = parse_probe(&done.stdout, container)?;
    details.network_isolated = done.network_isolated;
    Ok(details)
}

/// A poster frame of the video (the frame `ffmpegthumbnailer` picks, a
/// tenth of the way in), `width` pixels wide at most (clamped to
/// `MIN_RENDER_WIDTH..=MAX_RENDER_WIDTH`).
///
/// # Errors
/// `TOOL_MISSING` without ffmpegthumbnailer; `NOT_A_FILE`; `RENDER_FAILED`
/// when it finds no frame to show (no video stream, a codec it lacks, a cut
/// or corrupt file), crashes, or its PNG does not decode; `TIMEOUT`;
/// `TOO_LARGE` past `RENDER_OUTPUT_CAP`; `CANCELLED`.
pub fn video_poster<S: Source>(
    source: &S,
    path: &Path,
    width: u32,
    cancel: Option<&CancelToken>,
) -> Result<VideoPoster, CanopyError> {
    let width = width.clamp(MIN_RENDER_WIDTH, MAX_RENDER_WIDTH);
    let program = tool(THUMBNAILER, THUMBNAILER)?;
    let file = open(source, path)?;
    let w = width.to_string();
    let done = sandbox::run(&RenderJob {
        program: &program,
        args: args(&[
            "-i", FILE_ARG, "-o", "-", "-c", "png", "-s", &w, "-t", "10%",
        ]),
        file: Some(descriptor(&file)?),
        max_output: RENDER_OUTPUT_CAP,
        deadline: RENDER_DEADLINE,
        cancel,
    })
    .map_err(|e| start_error(THUMBNAILER, e))?;
    let done = finished(THUMBNAILER, done)?;
    if done.stdout.is_empty() {
        return Err(CanopyError::new(
            ErrorCode::RenderFailed,
            "ffmpegthumbnailer found no frame to show",
        ));
    }
    let (png, out_w, out_h) = reencode(&done.stdout, width, "poster frame")?;
    Ok(VideoPoster {
        width: out_w,
        height: out_h,
        png_base64: STANDARD.encode(png),
        network_isolated: done.network_isolated,
    })
}

/// `ffprobe`'s JSON, read into the facts shown.
fn parse_probe(json: &[u8], container: Container) -> Result<VideoDetails, CanopyError> {
    let probe: Value = serde_json::from_slice(json).map_err(|e| {
        CanopyError::new(
            ErrorCode::RenderFailed,
            format!("ffprobe's answer does not read as JSON: {e}"),
        )
    })?;
    let streams: &[Value] = probe["streams"].as_array().map_or(&[], Vec::as_slice);
    let of_type = |kind: &str| {
        streams.iter().find(|s| {
            s["codec_type"] == kind
                // A cover image is a "video" stream of one picture.
                && s["disposition"]["attached_pic"].as_i64() != Some(1)
        })
    };
    let video = of_type("video");
    let audio = of_type("audio");
    if video.is_none() && audio.is_none() {
        return Err(CanopyError::new(
            ErrorCode::RenderFailed,
            "ffprobe found no video or audio stream in this file",
        ));
    }
    let format = &probe["format"];
    let seconds = number(&format["duration"]).filter(|d| d.is_finite() && *d >= 0.0);
    let (mut width, mut height) = match video {
        Some(v) => (uint(&v["width"]), uint(&v["height"])),
        None => (None, None),
    };
    let turned = video
        .and_then(|v| v["side_data_list"].as_array())
        .into_iter()
        .flatten()
        .filter_map(|d| number(&d["rotation"]))
        .any(|r| (r.abs() as i64) % 180 == 90);
    if turned {
        std::mem::swap(&mut width, &mut height);
    }
    let codecs: Vec<Option<&'static str>> =
        [video, audio].into_iter().flatten().map(rfc6381).collect();
    let play_mime = if !codecs.is_empty() && codecs.iter().all(Option::is_some) {
        let names: Vec<&str> = codecs.into_iter().flatten().collect();
        format!("{}; codecs=\"{}\"", container.mime, names.join(", "))
    } else {
        container.mime.to_string()
    };
    Ok(VideoDetails {
        container: container.label.to_string(),
        duration_ms: seconds.map(|s| (s * 1000.0).round() as u64),
        width,
        height,
        video_codec: video.map(video_codec_name),
        // The average, else the stream's base rate (Ogg says no average).
        frame_rate: video.and_then(|v| {
            frame_rate(&v["avg_frame_rate"]).or_else(|| frame_rate(&v["r_frame_rate"]))
        }),
        audio_codec: audio.map(audio_codec_name),
        bit_rate_kbps: number(&format["bit_rate"])
            .filter(|b| *b > 0.0)
            .map(|b| (b / 1000.0).round().min(f64::from(u32::MAX)) as u32),
        play_mime,
        network_isolated: false,
    })
}

/// A JSON number, or a string holding one (ffprobe writes both).
fn number(v: &Value) -> Option<f64> {
    v.as_f64()
        .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
}

fn uint(v: &Value) -> Option<u32> {
    v.as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .filter(|n| *n > 0)
}

/// A name as shown: no control characters, at most `VIDEO_FIELD_CHARS`.
fn clean(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_control())
        .take(VIDEO_FIELD_CHARS)
        .collect::<String>()
        .trim()
        .to_string()
}

/// The codec's short name for people, else ffprobe's long one.
fn codec_label(stream: &Value) -> String {
    let name = stream["codec_name"].as_str().unwrap_or("");
    let known = match name {
        "h264" => "H.264",
        "hevc" => "H.265 (HEVC)",
        "vp8" => "VP8",
        "vp9" => "VP9",
        "av1" => "AV1",
        "theora" => "Theora",
        "mpeg4" => "MPEG-4 Part 2",
        "mpeg1video" => "MPEG-1",
        "mpeg2video" => "MPEG-2",
        "mjpeg" => "Motion JPEG",
        "prores" => "Apple ProRes",
        "msmpeg4v3" => "Microsoft MPEG-4 v3",
        "wmv2" => "Windows Media Video 8",
        "wmv3" => "Windows Media Video 9",
        "aac" => "AAC",
        "mp3" => "MP3",
        "mp2" => "MPEG audio layer II",
        "opus" => "Opus",
        "vorbis" => "Vorbis",
        "flac" => "FLAC",
        "ac3" => "Dolby Digital (AC-3)",
        "eac3" => "Dolby Digital Plus (E-AC-3)",
        "alac" => "Apple Lossless",
        "wmav2" => "Windows Media Audio",
        n if n.starts_with("pcm_") => "PCM",
        _ => "",
    };
    if !known.is_empty() {
        return known.to_string();
    }
    let long = clean(stream["codec_long_name"].as_str().unwrap_or(""));
    if long.is_empty() {
        let short = clean(name);
        if short.is_empty() {
            "unknown codec".to_string()
        } else {
            short
        }
    } else {
        long
    }
}

/// "H.264 (High)".
fn video_codec_name(stream: &Value) -> String {
    let label = codec_label(stream);
    match stream["profile"].as_str().map(clean) {
        // A bare number ("0" for VP8) says nothing to a person.
        Some(p)
            if !p.is_empty()
                && !p.eq_ignore_ascii_case("unknown")
                && !p.chars().all(|c| c.is_ascii_digit()) =>
        {
            format!("{label} ({p})")
        }
        _ => label,
    }
}

/// "AAC · 48 kHz · stereo".
fn audio_codec_name(stream: &Value) -> String {
    let mut parts = vec![codec_label(stream)];
    if let Some(rate) = number(&stream["sample_rate"]).filter(|r| *r > 0.0) {
        let khz = rate / 1000.0;
        parts.push(if khz.fract() == 0.0 {
            format!("{khz:.0} kHz")
        } else {
            format!("{khz:.1} kHz")
        });
    }
    match stream["channels"].as_u64() {
        Some(1) => parts.push("mono".into()),
        Some(2) => parts.push("stereo".into()),
        Some(n) if n > 2 => parts.push(format!("{n} channels")),
        _ => {}
    }
    parts.join(" · ")
}

/// "25 fps", "29.97 fps" from ffprobe's "30000/1001".
fn frame_rate(v: &Value) -> Option<String> {
    let (num, den) = v.as_str()?.split_once('/')?;
    let (num, den): (f64, f64) = (num.parse().ok()?, den.parse().ok()?);
    if num <= 0.0 || den <= 0.0 {
        return None;
    }
    let fps = num / den;
    if !(0.01..=10_000.0).contains(&fps) {
        return None;
    }
    Some(if (fps - fps.round()).abs() < 0.005 {
        format!("{} fps", fps.round())
    } else {
        format!("{fps:.2} fps")
    })
}

/// The codec's name in a MIME type's `codecs` parameter (RFC 6381), the
/// form a player's `canPlayType` judges; `None` for one without such a name.
fn rfc6381(stream: &Value) -> Option<&'static str> {
    let profile = stream["profile"].as_str().unwrap_or("");
    Some(match stream["codec_name"].as_str()? {
        // avc1.PPCCLL; the level matters little to whether a decoder exists.
        "h264" => match profile {
            "Baseline" | "Constrained Baseline" => "avc1.42E01E",
            "Main" => "avc1.4D401E",
            "High 10" | "High 10 Intra" => "avc1.6E001E",
            "High 4:2:2" | "High 4:2:2 Intra" => "avc1.7A001E",
            "High 4:4:4 Predictive" | "High 4:4:4 Intra" => "avc1.F4001E",
            _ => "avc1.64001E",
        },
        "hevc" => match profile {
            "Main 10" => "hvc1.2.4.L93.B0",
            _ => "hvc1.1.6.L93.B0",
        },
        "vp8" => "vp8",
        "vp9" => "vp9",
        "av1" => "av01.0.05M.08",
        "theora" => "theora",
        "mpeg4" => "mp4v.20.9",
        "aac" => "mp4a.40.2",
        "mp3" => "mp4a.6B",
        "opus" => "opus",
        "vorbis" => "vorbis",
        "flac" => "flac",
        "ac3" => "ac-3",
        "eac3" => "ec-3",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const MP4: Container = Container {
        label: "MP4",
        mime: "video/mp4",
    };

    #[test]
    fn probe_answer_is_read_into_the_facts() {
        let json = br#"{"streams":[
            {"codec_type":"video","codec_name":"png","disposition":{"attached_pic":1},"width":600,"height":600},
            {"codec_type":"video","codec_name":"h264","profile":"High","width":1920,"height":1080,"avg_frame_rate":"30000/1001","disposition":{"attached_pic":0},
             "side_data_list":[{"rotation":-90}]},
            {"codec_type":"audio","codec_name":"aac","profile":"LC","sample_rate":"44100","channels":2}],
            "format":{"format_name":"mov,mp4","duration":"12.345000","bit_rate":"2500000"}}"#;
        let d = parse_probe(json, MP4).unwrap();
        assert_eq!(d.container, "MP4");
        assert_eq!(d.duration_ms, Some(12_345));
        assert_eq!(
            (d.width, d.height),
            (Some(1080), Some(1920)),
            "a phone's turned video stands up"
        );
        assert_eq!(
            d.video_codec.as_deref(),
            Some("H.264 (High)"),
            "the cover picture is not the video"
        );
        assert_eq!(d.frame_rate.as_deref(), Some("29.97 fps"));
        assert_eq!(d.audio_codec.as_deref(), Some("AAC · 44.1 kHz · stereo"));
        assert_eq!(d.bit_rate_kbps, Some(2500));
        assert_eq!(d.play_mime, r#"video/mp4; codecs="avc1.64001E, mp4a.40.2""#);
    }

    #[test]
    fn unknown_codec_leaves_the_codecs_out_and_hostile_names_are_cleaned() {
        let json = br#"{"streams":[{"codec_type":"video","codec_name":"zz\u0007zz","codec_long_name":"Evil\u001b[31m codec","width":0}],"format":{"duration":"N/A"}}"#;
        let d = parse_probe(json, MP4).unwrap();
        assert_eq!(
            d.video_codec.as_deref(),
            Some("Evil[31m codec"),
            "control characters dropped"
        );
        assert_eq!(
            d.play_mime, "video/mp4",
            "no codecs parameter it cannot name"
        );
        assert_eq!(d.duration_ms, None);
        assert_eq!(d.width, None, "a zero width is not a width");
        let vp8 = br#"{"streams":[{"codec_type":"video","codec_name":"vp8","profile":"0"}]}"#;
        let d = parse_probe(vp8, MP4).unwrap();
        assert_eq!(
            d.video_codec.as_deref(),
            Some("VP8"),
            "no bare profile number"
        );
    }

    #[test]
    fn probe_without_streams_or_json_is_a_render_failure() {
        for bad in [&br#"{"streams":[],"format":{}}"#[..], b"not json", b""] {
            assert_eq!(
                parse_probe(bad, MP4).unwrap_err().code,
                ErrorCode::RenderFailed
            );
        }
    }
}
