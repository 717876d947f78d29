//! The grid's thumbnails, kept in the freedesktop thumbnail cache
//! (`$XDG_CACHE_HOME/thumbnails/normal`, else `~/.cache/thumbnails/normal`)
//! as the Thumbnail Managing Standard says: a PNG named by the MD5 of the
//! file's URI, holding `Thumb::URI` and `Thumb::MTime`.
//!
//! Promises:
//! - a valid thumbnail made by any application (its URI and its
//!   modification time both the file's now) is reused, never made again;
//!   one that is stale or another file's is not;
//! - a thumbnail is made from at most `IMAGE_CAP` bytes read on a bounded
//!   worker (as the preview reads an image), decoded in memory by pure-Rust
//!   decoders under `THUMB_DECODE_BYTES`, and scaled to fit `THUMB_SIZE`;
//! - the cache is the only place it is written (atomically, mode 0600 in a
//!   0700 folder), and only for a local regular file: never the browsed
//!   folder, never for an entry inside an archive;
//! - an SVG is not drawn here: its bytes are handed back as they are, for
//!   an `<img>`, where no script of it runs.
#![forbid(unsafe_code)]

use std::fs;
use std::io::{Cursor, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use md5::{Digest, Md5};

use crate::bounded::{self, Place};
use crate::error::{CanopyError, ErrorCode};
use crate::limits::{THUMB_DECODE_BYTES, THUMB_SIZE, TIME_BUDGET};
use crate::source::Source;
use crate::wire::{ImageFormat, Thumbnail};

/// Where thumbnails are kept: the `thumbnails` folder of the user's cache.
#[derive(Debug, Clone)]
pub struct ThumbCache {
    pub dir: PathBuf,
}

impl ThumbCache {
    /// `$XDG_CACHE_HOME/thumbnails`, else `~/.cache/thumbnails`.
    pub fn from_env() -> Option<ThumbCache> {
        let base = std::env::var_os("XDG_CACHE_HOME")
            .filter(|c| Path::new(c).is_absolute())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))?;
        Some(ThumbCache {
            dir: base.join("thumbnails"),
        })
    }

    /// The cache file of the file whose URI is `uri`.
    pub fn file_for(&self, uri: &str) -> PathBuf {
        let digest = Md5::digest(uri.as_bytes());
        let name: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        self.dir.join("normal").join(format!("{name}.png"))
    }
}

/// The thumbnail of the image at `path` in `source` (see the module's promises).
///
/// # Errors
/// `UNSUPPORTED` when the file is no image Canopy draws; `TOO_LARGE` past
/// `IMAGE_CAP` or the decoder's limit; `CORRUPT` when it does not decode;
/// as a preview's read otherwise (`TIMEOUT` on a dead mount).
pub fn thumbnail<S: Source>(
    source: &S,
    path: &Path,
    cache: Option<&ThumbCache>,
) -> Result<Thumbnail, CanopyError> {
    // A local regular file has a URI and a modification time: it may be cached.
    let stamp = crate::facts::entry_meta(path)
        .ok()
        .filter(|m| m.file_type().is_file())
        .map(|m| (crate::places::bookmarks::file_uri(path), m.mtime()));
    let cached = cache
        .zip(stamp.as_ref())
        .map(|(c, (uri, _))| c.file_for(uri));
    if let (Some(file), Some((uri, mtime))) = (&cached, &stamp) {
        if let Some(png) = reuse(file, uri, *mtime) {
            return Ok(picture("image/png", &png, true));
        }
    }
    let (bytes, format) = crate::preview::preview_image(source, path).map_err(|e| {
        if e.code == ErrorCode::InvalidArgument {
            CanopyError::new(ErrorCode::Unsupported, "not an image Canopy draws")
        } else {
            e
        }
    })?;
    if format == ImageFormat::Svg {
        return Ok(picture(format.mime(), &bytes, false));
    }
    let png = scale(&bytes, format, stamp.as_ref())?;
    if let (Some(file), Some(c)) = (&cached, cache) {
        // A cache that cannot be written costs only the next time.
        let _ = store(&c.dir, file, &png);
    }
    Ok(picture("image/png", &png, false))
}

fn picture(mime: &str, bytes: &[u8], reused: bool) -> Thumbnail {
    Thumbnail {
        mime: mime.into(),
        data: STANDARD.encode(bytes),
        reused,
    }
}

/// A cached thumbnail, when it is valid for this URI and modification time.
fn reuse(file: &Path, uri: &str, mtime: i64) -> Option<Vec<u8>> {
    let owned = file.to_path_buf();
    let png = bounded::call(Place::path(file), TIME_BUDGET, move |_| {
        fs::read(&owned).ok()
    })
    .ok()
    .flatten()?;
    let decoder = png::Decoder::new(Cursor::new(&png[..]));
    let reader = decoder.read_info().ok()?;
    let text = &reader.info().uncompressed_latin1_text;
    let key = |k: &str| text.iter().find(|t| t.keyword == k).map(|t| t.text.clone());
    let valid = key("Thumb::URI").as_deref() == Some(uri)
        && key("Thumb::MTime").and_then(|m| m.parse::<i64>().ok()) == Some(mtime);
    valid.then_some(png)
}

/// Decodes the image and scales it to fit `THUMB_SIZE`, as a PNG holding the
/// standard's keys when the file has a URI.
fn scale(
    bytes: &[u8],
    format: ImageFormat,
    stamp: Option<&(String, i64)>,
) -> Result<Vec<u8>, CanopyError> {
    let kind = match format {
        ImageFormat::Png => image::ImageFormat::Png,
        ImageFormat::Jpeg => image::ImageFormat::Jpeg,
        ImageFormat::Gif => image::ImageFormat::Gif,
        ImageFormat::Webp => image::ImageFormat::WebP,
        ImageFormat::Bmp => image::ImageFormat::Bmp,
        ImageFormat::Ico => image::ImageFormat::Ico,
        ImageFormat::Svg => {
            return Err(CanopyError::new(
                ErrorCode::Unsupported,
                "an SVG is drawn by the window",
            ))
        }
    };
    let mut reader = image::ImageReader::with_format(Cursor::new(bytes), kind);
    let mut limits = image::Limits::default();
    limits.max_alloc = Some(THUMB_DECODE_BYTES);
    reader.limits(limits);
    let img = reader.decode().map_err(|e| match e {
        image::ImageError::Limits(_) => CanopyError::new(
            ErrorCode::TooLarge,
            format!("too large to draw a thumbnail of ({e})"),
        ),
        _ => CanopyError::new(
            ErrorCode::Corrupt,
            format!("the image does not decode: {e}"),
        ),
    })?;
    // A picture that fits already is kept as it is (never scaled up).
    let small = if img.width() <= THUMB_SIZE && img.height() <= THUMB_SIZE {
        img.to_rgba8()
    } else {
        img.thumbnail(THUMB_SIZE, THUMB_SIZE).to_rgba8()
    };
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, small.width(), small.height());
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let io = |e: png::EncodingError| CanopyError::new(ErrorCode::Io, e.to_string());
        let mut keys = vec![("Software", "Canopy".to_string())];
        if let Some((uri, mtime)) = stamp {
            keys.push(("Thumb::URI", uri.clone()));
            keys.push(("Thumb::MTime", mtime.to_string()));
        }
        for (k, v) in keys {
            enc.add_text_chunk(k.into(), v).map_err(io)?;
        }
        let mut w = enc.write_header().map_err(io)?;
        w.write_image_data(small.as_raw()).map_err(io)?;
    }
    Ok(out)
}

/// Writes a thumbnail into the cache atomically (a temporary file renamed over it).
fn store(dir: &Path, file: &Path, png: &[u8]) -> std::io::Result<()> {
    let folder = file.parent().unwrap_or(dir);
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(folder)?;
    let mut name = std::ffi::OsString::from(".");
    name.push(file.file_name().unwrap_or_default());
    name.push(format!(".canopy-{}.tmp", std::process::id()));
    let temp = folder.join(name);
    let written = (|| {
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&temp)?;
        f.write_all(png)?;
        fs::rename(&temp, file)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&temp);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LocalFs;

    fn png_of(w: u32, h: u32, rgba: [u8; 4], text: &[(&str, String)]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        for (k, v) in text {
            enc.add_text_chunk((*k).into(), v.clone()).unwrap();
        }
        let mut wr = enc.write_header().unwrap();
        wr.write_image_data(&rgba.repeat((w * h) as usize)).unwrap();
        drop(wr);
        out
    }

    fn size_of(t: &Thumbnail) -> (u32, u32) {
        let bytes = STANDARD.decode(&t.data).unwrap();
        let r = png::Decoder::new(Cursor::new(&bytes[..]))
            .read_info()
            .unwrap();
        (r.info().width, r.info().height)
    }

    struct Scene {
        dir: tempfile::TempDir,
        cache: ThumbCache,
    }

    fn scene() -> Scene {
        let dir = tempfile::tempdir().unwrap();
        let cache = ThumbCache {
            dir: dir.path().join("cache/thumbnails"),
        };
        Scene { dir, cache }
    }

    fn mtime(p: &Path) -> i64 {
        fs::metadata(p).unwrap().mtime()
    }

    #[test]
    fn an_image_is_scaled_to_fit_the_normal_size_and_cached_with_its_uri_and_mtime() {
        let s = scene();
        let photo = s.dir.path().join("photo one.png");
        fs::write(&photo, png_of(300, 200, [200, 0, 0, 255], &[])).unwrap();
        let t = thumbnail(&LocalFs::new(), &photo, Some(&s.cache)).unwrap();
        assert_eq!((t.mime.as_str(), t.reused), ("image/png", false));
        assert_eq!(size_of(&t), (128, 85), "fits 128 a side, aspect kept");
        let uri = crate::places::bookmarks::file_uri(&photo);
        let cached = s.cache.file_for(&uri);
        assert!(
            reuse(&cached, &uri, mtime(&photo)).is_some(),
            "written where other applications look, with the keys they check"
        );
        assert_eq!(fs::metadata(&cached).unwrap().mode() & 0o777, 0o600);
    }

    #[test]
    fn a_small_picture_is_never_scaled_up() {
        let s = scene();
        let icon = s.dir.path().join("icon.png");
        fs::write(&icon, png_of(64, 48, [0, 200, 0, 255], &[])).unwrap();
        let t = thumbnail(&LocalFs::new(), &icon, Some(&s.cache)).unwrap();
        assert_eq!(size_of(&t), (64, 48));
    }

    #[test]
    fn a_valid_thumbnail_made_by_another_application_is_reused() {
        let s = scene();
        let photo = s.dir.path().join("p.png");
        fs::write(&photo, png_of(300, 200, [200, 0, 0, 255], &[])).unwrap();
        let uri = crate::places::bookmarks::file_uri(&photo);
        let theirs = png_of(
            7,
            3,
            [0, 0, 255, 255],
            &[
                ("Thumb::URI", uri.clone()),
                ("Thumb::MTime", mtime(&photo).to_string()),
            ],
        );
        let file = s.cache.file_for(&uri);
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(&file, &theirs).unwrap();
        let t = thumbnail(&LocalFs::new(), &photo, Some(&s.cache)).unwrap();
        assert!(t.reused);
        assert_eq!(size_of(&t), (7, 3), "theirs, not one made again");
    }

    #[test]
    fn a_stale_or_foreign_thumbnail_is_made_again() {
        let s = scene();
        let photo = s.dir.path().join("p.png");
        fs::write(&photo, png_of(300, 200, [200, 0, 0, 255], &[])).unwrap();
        let uri = crate::places::bookmarks::file_uri(&photo);
        let file = s.cache.file_for(&uri);
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        for keys in [
            vec![
                ("Thumb::URI", uri.clone()),
                ("Thumb::MTime", (mtime(&photo) - 1).to_string()),
            ],
            vec![
                ("Thumb::URI", "file:///elsewhere.png".to_string()),
                ("Thumb::MTime", mtime(&photo).to_string()),
            ],
            vec![],
        ] {
            fs::write(&file, png_of(7, 3, [0, 0, 255, 255], &keys)).unwrap();
            let t = thumbnail(&LocalFs::new(), &photo, Some(&s.cache)).unwrap();
            assert!(!t.reused, "{keys:?}");
            assert_eq!(size_of(&t), (128, 85));
        }
    }

    #[test]
    fn an_svg_is_handed_back_as_it_is_and_nothing_is_cached() {
        let s = scene();
        let svg = s.dir.path().join("logo.svg");
        let text = "<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>";
        fs::write(&svg, text).unwrap();
        let t = thumbnail(&LocalFs::new(), &svg, Some(&s.cache)).unwrap();
        assert_eq!(t.mime, "image/svg+xml");
        assert_eq!(STANDARD.decode(&t.data).unwrap(), text.as_bytes());
        assert!(!s.cache.dir.exists());
    }

    #[test]
    fn a_file_that_is_no_image_is_unsupported() {
        let s = scene();
        let f = s.dir.path().join("notes.txt");
        fs::write(&f, "hello\n").unwrap();
        assert_eq!(
            thumbnail(&LocalFs::new(), &f, Some(&s.cache))
                .unwrap_err()
                .code,
            ErrorCode::Unsupported
        );
    }

    #[test]
    fn a_small_file_claiming_a_huge_picture_is_refused() {
        let s = scene();
        // A PNG header for 60,000 x 60,000 pixels (14 GB of RGBA), and no pixels.
        let mut ihdr = b"IHDR".to_vec();
        ihdr.extend(60_000u32.to_be_bytes());
        ihdr.extend(60_000u32.to_be_bytes());
        ihdr.extend([8, 6, 0, 0, 0]);
        let mut bomb = b"\x89PNG\r\n\x1a\n".to_vec();
        bomb.extend(13u32.to_be_bytes());
        bomb.extend(&ihdr);
        bomb.extend(crc32fast::hash(&ihdr).to_be_bytes());
        let f = s.dir.path().join("bomb.png");
        fs::write(&f, &bomb).unwrap();
        let e = thumbnail(&LocalFs::new(), &f, Some(&s.cache)).unwrap_err();
        assert!(
            matches!(e.code, ErrorCode::TooLarge | ErrorCode::Corrupt),
            "{e:?}"
        );
    }
}
