//! Videos as people open them: their facts (`ffprobe`) and a poster frame
//! (`ffmpegthumbnailer`) through the sandboxed renderer. Every video is
//! made here by ffmpeg from its `testsrc` pattern and a sine tone, in the
//! containers and codecs Debian's ffmpeg writes; hostile ones are cut or
//! made of junk.

use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine as _;
use canopy_core::cancel::CancelToken;
use canopy_core::preview::{read_preview_bounded, PreviewRequest};
use canopy_core::wire::{MediaKind, VideoDetails};
use canopy_core::{names::encode_handle, video_details, video_poster, ErrorCode, LocalFs};

/// One second of `testsrc` (320 x 240, 10 fps) and a 440 Hz tone, encoded
/// with `codec` (ffmpeg's arguments) into `dir/name`.
fn make(dir: &Path, name: &str, codec: &[&str]) -> PathBuf {
    let out = dir.join(name);
    let mut args = vec![
        "-hide_banner",
        "-loglevel",
        "error",
        "-f",
        "lavfi",
        "-i",
        "testsrc=size=320x240:rate=10",
        "-f",
        "lavfi",
        "-i",
        "sine=frequency=440:sample_rate=48000",
        "-t",
        "1",
    ];
    args.extend_from_slice(codec);
    args.push("-y");
    let status = Command::new("ffmpeg")
        .args(&args)
        .arg(&out)
        .status()
        .expect("these tests need ffmpeg (scripts/setup.sh installs it)");
    assert!(status.success(), "ffmpeg made {name}");
    out
}

struct Clip {
    name: &'static str,
    codec: &'static [&'static str],
    container: &'static str,
    video: &'static str,
    audio: Option<&'static str>,
    play_mime: &'static str,
}

/// The containers and codecs the issue names, as Debian's ffmpeg writes them.
const CLIPS: &[Clip] = &[
    Clip {
        name: "clip.mp4",
        codec: &["-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac"],
        container: "MP4",
        video: "H.264 (High)",
        audio: Some("AAC · 48 kHz · mono"),
        play_mime: "video/mp4; codecs=\"avc1.64001E, mp4a.40.2\"",
    },
    Clip {
        name: "clip.m4v",
        codec: &[
            "-c:v", "libx264", "-pix_fmt", "yuv420p", "-an", "-f", "mp4", "-brand", "M4V ",
        ],
        container: "MP4 (M4V)",
        video: "H.264 (High)",
        audio: None,
        play_mime: "video/mp4; codecs=\"avc1.64001E\"",
    },
    Clip {
        name: "clip.mov",
        codec: &["-c:v", "mpeg4", "-c:a", "libmp3lame", "-f", "mov"],
        container: "QuickTime",
        video: "MPEG-4 Part 2 (Simple Profile)",
        audio: Some("MP3 · 48 kHz · mono"),
        play_mime: "video/quicktime; codecs=\"mp4v.20.9, mp4a.6B\"",
    },
    Clip {
        name: "clip.webm",
        codec: &[
            "-c:v",
            "libvpx-vp9",
            "-pix_fmt",
            "yuv420p",
            "-c:a",
            "libopus",
        ],
        container: "WebM",
        video: "VP9 (Profile 0)",
        audio: Some("Opus · 48 kHz · mono"),
        play_mime: "video/webm; codecs=\"vp9, opus\"",
    },
    Clip {
        name: "clip.mkv",
        codec: &[
            "-c:v",
            "libx265",
            "-x265-params",
            "log-level=error",
            "-pix_fmt",
            "yuv420p",
            "-c:a",
            "flac",
        ],
        container: "Matroska",
        video: "H.265 (HEVC) (Main)",
        audio: Some("FLAC · 48 kHz · mono"),
        play_mime: "video/x-matroska; codecs=\"hvc1.1.6.L93.B0, flac\"",
    },
    Clip {
        name: "clip.avi",
        codec: &["-c:v", "mpeg4", "-c:a", "libmp3lame"],
        container: "AVI",
        video: "MPEG-4 Part 2 (Simple Profile)",
        audio: Some("MP3 · 48 kHz · mono"),
        play_mime: "video/x-msvideo; codecs=\"mp4v.20.9, mp4a.6B\"",
    },
    Clip {
        name: "clip.ogv",
        codec: &["-c:v", "libtheora", "-c:a", "libvorbis"],
        container: "Ogg",
        video: "Theora",
        audio: Some("Vorbis · 48 kHz · mono"),
        play_mime: "video/ogg; codecs=\"theora, vorbis\"",
    },
];

fn details(path: &Path) -> VideoDetails {
    video_details(&LocalFs::new(), path, None)
        .unwrap_or_else(|e| panic!("{}: {e:?}", path.display()))
}

fn decode(png: &[u8]) -> image::RgbaImage {
    image::load(Cursor::new(png), image::ImageFormat::Png)
        .expect("a PNG")
        .to_rgba8()
}

#[test]
fn each_container_and_codec_has_its_facts_read_in_the_sandbox() {
    let dir = tempfile::tempdir().unwrap();
    for clip in CLIPS {
        let p = make(dir.path(), clip.name, clip.codec);
        let d = details(&p);
        let name = clip.name;
        assert_eq!(d.container, clip.container, "{name}");
        assert_eq!((d.width, d.height), (Some(320), Some(240)), "{name}");
        assert_eq!(d.video_codec.as_deref(), Some(clip.video), "{name}");
        assert_eq!(d.audio_codec.as_deref(), clip.audio, "{name}");
        assert_eq!(d.frame_rate.as_deref(), Some("10 fps"), "{name}");
        let ms = d
            .duration_ms
            .unwrap_or_else(|| panic!("{name} has a duration"));
        assert!(
            (900..=1200).contains(&ms),
            "{name}: about a second, not {ms} ms"
        );
        assert_eq!(d.play_mime, clip.play_mime, "{name}");
        assert!(d.network_isolated, "{name}: ffprobe ran with no network");
    }
}

#[test]
fn facts_agree_with_ffprobe_run_directly() {
    let dir = tempfile::tempdir().unwrap();
    let p = make(
        dir.path(),
        "clip.webm",
        &["-c:v", "libvpx", "-c:a", "libvorbis"],
    );
    let out = Command::new("ffprobe")
        .args(["-v", "error", "-of", "default=nw=1:nk=1"])
        .args(["-show_entries", "format=duration:stream=width,height"])
        .args(["-select_streams", "v:0"])
        .arg(&p)
        .output()
        .unwrap();
    let said = String::from_utf8(out.stdout).unwrap();
    let fields: Vec<&str> = said.split_whitespace().collect();
    let d = details(&p);
    assert_eq!(d.width.unwrap().to_string(), fields[0]);
    assert_eq!(d.height.unwrap().to_string(), fields[1]);
    let secs: f64 = fields[2].parse().unwrap();
    assert_eq!(d.duration_ms, Some((secs * 1000.0).round() as u64));
}

#[test]
fn poster_frame_is_the_thumbnailers_frame_encoded_by_canopy_at_the_panes_width() {
    let dir = tempfile::tempdir().unwrap();
    for clip in CLIPS {
        let p = make(dir.path(), clip.name, clip.codec);
        let poster = video_poster(&LocalFs::new(), &p, 200, None)
            .unwrap_or_else(|e| panic!("{}: {e:?}", clip.name));
        assert_eq!(
            (poster.width, poster.height),
            (200, 150),
            "{}: 4:3 at the pane's width",
            clip.name
        );
        let ours = decode(
            &base64::engine::general_purpose::STANDARD
                .decode(&poster.png_base64)
                .unwrap(),
        );
        // The same frame, as ffmpegthumbnailer makes it run directly.
        let direct = dir.path().join("direct.png");
        let status = Command::new("ffmpegthumbnailer")
            .args(["-c", "png", "-s", "200", "-t", "10%", "-i"])
            .arg(&p)
            .arg("-o")
            .arg(&direct)
            .status()
            .unwrap();
        assert!(status.success());
        let theirs = decode(&std::fs::read(&direct).unwrap());
        assert_eq!(ours.dimensions(), theirs.dimensions(), "{}", clip.name);
        let differ = ours
            .pixels()
            .zip(theirs.pixels())
            .filter(|(a, b)| a.0[..3] != b.0[..3])
            .count();
        assert_eq!(differ, 0, "{}: the very frame, pixel for pixel", clip.name);
        // testsrc is colourful: not a blank frame.
        let colours: std::collections::HashSet<[u8; 3]> =
            ours.pixels().map(|p| [p.0[0], p.0[1], p.0[2]]).collect();
        assert!(
            colours.len() > 50,
            "{}: {} colours",
            clip.name,
            colours.len()
        );
    }
}

#[test]
fn poster_width_is_clamped_to_the_renderers_limits() {
    let dir = tempfile::tempdir().unwrap();
    let p = make(dir.path(), "clip.ogv", &["-c:v", "libtheora", "-an"]);
    let small = video_poster(&LocalFs::new(), &p, 1, None).unwrap();
    assert_eq!(small.width, canopy_core::limits::MIN_RENDER_WIDTH);
    // However wide the pane says it is, no wider than the renderer's limit.
    let big = video_poster(&LocalFs::new(), &p, u32::MAX, None).unwrap();
    assert!(
        big.width <= canopy_core::limits::MAX_RENDER_WIDTH,
        "{}",
        big.width
    );
}

#[test]
fn a_video_is_told_by_its_content_not_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let kinds = |p: &Path| {
        read_preview_bounded(&PreviewRequest {
            handle: encode_handle(p),
            offset: 0,
            length: 4096,
        })
        .unwrap()
        .media
    };
    for clip in CLIPS {
        let p = make(dir.path(), clip.name, clip.codec);
        // Renamed to a text file's name: still a video.
        let renamed = dir.path().join(format!("{}.txt", clip.name));
        std::fs::rename(&p, &renamed).unwrap();
        assert_eq!(kinds(&renamed), Some(MediaKind::Video), "{}", clip.name);
        assert_eq!(details(&renamed).container, clip.container);
    }
    // And a text file named like a video is not one.
    let fake = dir.path().join("fake.mp4");
    std::fs::write(&fake, "just some text\n").unwrap();
    assert_eq!(kinds(&fake), None);
    let err = video_details(&LocalFs::new(), &fake, None).unwrap_err();
    assert_eq!(err.code, ErrorCode::Unsupported, "{err:?}");
    // Ogg audio stays audio.
    let oga = dir.path().join("tone.ogg");
    let status = Command::new("ffmpeg")
        .args(["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i"])
        .args(["sine=frequency=440:duration=1", "-c:a", "libvorbis", "-y"])
        .arg(&oga)
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(kinds(&oga), Some(MediaKind::Audio));
}

#[test]
fn a_cut_video_is_a_render_failure_never_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    // ffmpeg writes an MP4's index (moov) at its end: the first half has none.
    let p = make(
        dir.path(),
        "whole.mp4",
        &["-c:v", "libx264", "-pix_fmt", "yuv420p", "-an"],
    );
    let bytes = std::fs::read(&p).unwrap();
    let cut = dir.path().join("cut.mp4");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let err = video_details(&LocalFs::new(), &cut, None).unwrap_err();
    assert_eq!(err.code, ErrorCode::RenderFailed, "{err:?}");
    assert!(err.message.contains("ffprobe"), "{}", err.message);
    let err = video_poster(&LocalFs::new(), &cut, 200, None).unwrap_err();
    assert_eq!(err.code, ErrorCode::RenderFailed, "{err:?}");
}

#[test]
fn junk_after_a_video_header_is_a_render_failure() {
    let dir = tempfile::tempdir().unwrap();
    // A WebM's EBML header, then 64 KiB of noise (a fixed pattern).
    let mut bytes = b"\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\xf7\x81\x01\x42\xf2\x81\x04\x42\xf3\x81\x08\x42\x82\x84webm\x42\x87\x81\x02\x42\x85\x81\x02".to_vec();
    let mut x: u32 = 2463534242;
    for _ in 0..65536 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        bytes.push(x as u8);
    }
    let p = dir.path().join("junk.webm");
    std::fs::write(&p, &bytes).unwrap();
    for err in [
        video_details(&LocalFs::new(), &p, None).unwrap_err(),
        video_poster(&LocalFs::new(), &p, 200, None).unwrap_err(),
    ] {
        assert_eq!(err.code, ErrorCode::RenderFailed, "{err:?}");
    }
    // A JPEG inside an AVI header, or any junk behind an ftyp box, likewise.
    let p = dir.path().join("junk.mp4");
    let mut bytes = b"\0\0\0\x18ftypisom\0\0\x02\0isomiso2\0\0\0\x08moov".to_vec();
    bytes.extend(std::iter::repeat_n(0xffu8, 4096));
    std::fs::write(&p, &bytes).unwrap();
    for err in [
        video_details(&LocalFs::new(), &p, None).unwrap_err(),
        video_poster(&LocalFs::new(), &p, 200, None).unwrap_err(),
    ] {
        assert_eq!(err.code, ErrorCode::RenderFailed, "{err:?}");
    }
}

#[test]
fn a_sound_only_file_in_a_video_container_has_details_and_says_it_has_no_frame() {
    let dir = tempfile::tempdir().unwrap();
    let p = make(dir.path(), "sound.mkv", &["-vn", "-c:a", "libvorbis"]);
    let d = details(&p);
    assert_eq!(d.video_codec, None);
    assert_eq!(d.width, None);
    assert_eq!(d.audio_codec.as_deref(), Some("Vorbis · 48 kHz · mono"));
    let err = video_poster(&LocalFs::new(), &p, 200, None).unwrap_err();
    assert_eq!(err.code, ErrorCode::RenderFailed, "{err:?}");
}

#[test]
fn a_fifo_is_never_opened_for_a_video() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("pipe.mp4");
    let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
    // SAFETY (test): mkfifo on a fresh path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    for err in [
        video_details(&LocalFs::new(), &p, None).unwrap_err(),
        video_poster(&LocalFs::new(), &p, 200, None).unwrap_err(),
    ] {
        assert_eq!(err.code, ErrorCode::NotAFile, "{err:?}");
    }
}

#[test]
fn a_cancelled_poster_answers_cancelled() {
    let dir = tempfile::tempdir().unwrap();
    let p = make(dir.path(), "clip.webm", &["-c:v", "libvpx", "-an"]);
    let token = CancelToken::default();
    token.cancel();
    let err = video_poster(&LocalFs::new(), &p, 200, Some(&token)).unwrap_err();
    assert_eq!(err.code, ErrorCode::Cancelled);
    let err = video_details(&LocalFs::new(), &p, Some(&token)).unwrap_err();
    assert_eq!(err.code, ErrorCode::Cancelled);
}
