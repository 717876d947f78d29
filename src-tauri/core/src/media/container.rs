//! Which video container a file's first bytes say it is: the one rule used
//! to tell a video from other files (`sniff_media`), to name the stream's
//! MIME type (`media_mime`) and to name the container in a video's details.
//! Told by content, never by the file's extension.
#![forbid(unsafe_code)]

/// A video container, with its name for people and its MIME type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Container {
    /// "MP4", "QuickTime", "WebM", "Matroska", "AVI", "Ogg"...
    pub label: &'static str,
    /// The MIME type the window's player is told.
    pub mime: &'static str,
}

const fn c(label: &'static str, mime: &'static str) -> Option<Container> {
    Some(Container { label, mime })
}

/// The video container `head` (a file's first bytes, at least 64 for most,
/// up to a KiB for Ogg and MPEG-TS) starts, if any. An MP4 whose brand says
/// audio (`M4A `) or a still image (HEIF) is not a video.
pub fn video_container(head: &[u8]) -> Option<Container> {
    let at = |range: std::ops::Range<usize>| head.get(range);
    if at(4..8) == Some(b"ftyp") {
        return match at(8..12)? {
            b"qt  " => c("QuickTime", "video/quicktime"),
            b"3gp4" | b"3gp5" | b"3gp6" | b"3g2a" => c("3GP", "video/3gpp"),
            b"M4V " | b"M4VH" | b"M4VP" => c("MP4 (M4V)", "video/mp4"),
            b"isom" | b"iso2" | b"iso4" | b"iso5" | b"iso6" | b"mp41" | b"mp42" | b"avc1"
            | b"dash" | b"mmp4" | b"MSNV" | b"XAVC" | b"f4v " | b"av01" => c("MP4", "video/mp4"),
            _ => None,
        };
    }
    // A QuickTime file from before `ftyp`: its first atom is the movie's.
    if matches!(at(4..8), Some(b"moov" | b"mdat" | b"wide")) {
        return c("QuickTime", "video/quicktime");
    }
    if head.starts_with(b"\x1a\x45\xdf\xa3") {
        // EBML: the DocType element (42 82) names WebM or Matroska.
        let window = &head[..head.len().min(64)];
        let webm = window.windows(7).any(|w| w == b"\x42\x82\x84webm");
        return if webm {
            c("WebM", "video/webm")
        } else {
            c("Matroska", "video/x-matroska")
        };
    }
    if head.len() >= 12 && &head[..4] == b"RIFF" && &head[8..12] == b"AVI " {
        return c("AVI", "video/x-msvideo");
    }
    if head.starts_with(b"OggS") {
        // A Theora stream's first packet, on the first page or after a
        // Skeleton stream's: Ogg audio is left to the audio view.
        let window = &head[..head.len().min(1024)];
        return window
            .windows(7)
            .any(|w| w == b"\x80theora")
            .then_some(Container {
                label: "Ogg",
                mime: "video/ogg",
            });
    }
    if head.starts_with(b"FLV\x01") {
        return c("Flash Video (FLV)", "video/x-flv");
    }
    if head.starts_with(b"\x30\x26\xb2\x75\x8e\x66\xcf\x11") {
        return c("ASF (Windows Media)", "video/x-ms-asf");
    }
    if head.starts_with(b"\x00\x00\x01\xba") {
        return c("MPEG program stream", "video/mpeg");
    }
    // MPEG transport stream: a sync byte every 188 bytes, five times (a text
    // of nothing but `G`s is not one).
    let ts = head.len() > 4 * 188 && head[1] != 0x47 && (0..5).all(|i| head[i * 188] == 0x47);
    if ts {
        return c("MPEG transport stream", "video/mp2t");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ftyp(brand: &[u8; 4]) -> Vec<u8> {
        let mut v = b"\0\0\0\x18ftyp".to_vec();
        v.extend_from_slice(brand);
        v.extend_from_slice(b"\0\0\x02\0isomiso2");
        v
    }

    #[test]
    fn containers_are_told_by_their_first_bytes() {
        assert_eq!(video_container(&ftyp(b"isom")).unwrap().mime, "video/mp4");
        assert_eq!(video_container(&ftyp(b"qt  ")).unwrap().label, "QuickTime");
        assert_eq!(
            video_container(&ftyp(b"M4A ")),
            None,
            "an MP4 of audio is audio"
        );
        assert_eq!(
            video_container(&ftyp(b"heic")),
            None,
            "a HEIF photo is a photo"
        );
        assert_eq!(
            video_container(b"\0\0\0\x08wide\0\0\0\x10mdat")
                .unwrap()
                .label,
            "QuickTime"
        );
        let webm = b"\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\xf7\x81\x01\x42\xf2\x81\x04\x42\xf3\x81\x08\x42\x82\x84webm";
        assert_eq!(video_container(webm).unwrap().label, "WebM");
        let mkv = b"\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\x82\x88matroska";
        assert_eq!(video_container(mkv).unwrap().label, "Matroska");
        assert_eq!(
            video_container(b"RIFF\0\0\0\0AVI LIST").unwrap().label,
            "AVI"
        );
        assert_eq!(
            video_container(b"RIFF\0\0\0\0WAVEfmt "),
            None,
            "a WAV is audio"
        );
        let mut ogv = b"OggS\0\x02\0\0\0\0\0\0\0\0\x01\0\0\0\0\0\0\0\0\0\0\0\x01\x2a".to_vec();
        ogv.extend_from_slice(b"\x80theora\x03\x02");
        assert_eq!(video_container(&ogv).unwrap().mime, "video/ogg");
        let mut oga = ogv.clone();
        oga.truncate(28);
        oga.extend_from_slice(b"\x01vorbis\0\0");
        assert_eq!(video_container(&oga), None, "Ogg Vorbis is audio");
        assert_eq!(video_container(b"%PDF-1.4"), None);
        assert_eq!(video_container(b""), None);
        assert_eq!(
            video_container(b"\0\0\0\x18ftyp"),
            None,
            "a cut header is nothing"
        );
    }
}
