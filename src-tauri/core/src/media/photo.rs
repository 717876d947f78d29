//! A photo's EXIF details (camera, lens, exposure, when, where), read with
//! a budget: at most `EXIF_READ_BUDGET` bytes of the file, parsed by a
//! pure-Rust reader (`kamadak-exif`) in the app. A photo without EXIF, or
//! with EXIF the reader refuses, has no details: not an error.
#![forbid(unsafe_code)]

use std::path::Path;

use exif::{In, Tag, Value};

use super::open;
use crate::bounded::{self, Place};
use crate::error::CanopyError;
use crate::limits::{EXIF_FIELD_CHARS, EXIF_READ_BUDGET, TIME_BUDGET};
use crate::source::Source;
use crate::wire::{GpsPosition, PhotoDetails};

/// A photo's EXIF details, from at most `EXIF_READ_BUDGET` of its bytes.
///
/// # Errors
/// `NOT_A_FILE` for anything but a regular file (never opened); `TIMEOUT`
/// when the file does not answer; the source's code otherwise.
pub fn photo_details<S: Source>(source: &S, path: &Path) -> Result<PhotoDetails, CanopyError> {
    let file = open(source, path)?;
    let head = bounded::call(Place::path(path), TIME_BUDGET, move |_| {
        crate::preview::read_at(&file, 0, EXIF_READ_BUDGET)
    })??;
    Ok(details_of(&head))
}

/// The details in a photo's first bytes.
pub(crate) fn details_of(head: &[u8]) -> PhotoDetails {
    let Ok(exif) = exif::Reader::new().read_from_container(&mut std::io::Cursor::new(head)) else {
        return PhotoDetails::default();
    };
    let text = |tag: Tag| -> Option<String> {
        let f = exif.get_field(tag, In::PRIMARY)?;
        let s = match &f.value {
            Value::Ascii(parts) => parts
                .iter()
                .map(|p| String::from_utf8_lossy(p).into_owned())
                .collect::<Vec<_>>()
                .join(" "),
            _ => f.display_value().to_string(),
        };
        let s: String = s
            .chars()
            .filter(|c| !c.is_control())
            .take(EXIF_FIELD_CHARS)
            .collect();
        let s = s.trim().to_string();
        (!s.is_empty()).then_some(s)
    };
    let number = |tag: Tag| -> Option<u32> { exif.get_field(tag, In::PRIMARY)?.value.get_uint(0) };
    let rational = |tag: Tag, i: usize| -> Option<f64> {
        match &exif.get_field(tag, In::PRIMARY)?.value {
            Value::Rational(v) => v.get(i).filter(|r| r.denom != 0).map(|r| r.to_f64()),
            Value::SRational(v) => v.get(i).filter(|r| r.denom != 0).map(|r| r.to_f64()),
            _ => None,
        }
    };
    let camera = match (text(Tag::Make), text(Tag::Model)) {
        (Some(make), Some(model)) if model.to_lowercase().starts_with(&make.to_lowercase()) => {
            Some(model)
        }
        (Some(make), Some(model)) => Some(format!("{make} {model}")),
        (make, model) => make.or(model),
    };
    let lens = text(Tag::LensModel).or_else(|| text(Tag::LensMake));
    let mut exposure = Vec::new();
    if let Some(t) = rational(Tag::ExposureTime, 0) {
        exposure.push(if t > 0.0 && t < 1.0 {
            format!("1/{} s", (1.0 / t).round())
        } else {
            format!("{t} s")
        });
    }
    if let Some(f) = rational(Tag::FNumber, 0) {
        exposure.push(format!("f/{f:.1}"));
    }
    if let Some(iso) = number(Tag::PhotographicSensitivity) {
        exposure.push(format!("ISO {iso}"));
    }
    if let Some(mm) = rational(Tag::FocalLength, 0) {
        exposure.push(format!("{mm:.0} mm"));
    }
    let taken_at = text(Tag::DateTimeOriginal)
        .or_else(|| text(Tag::DateTime))
        .map(|t| {
            // "2024:05:01 14:03:22": the date's colons become dashes.
            let mut t: String = t
                .char_indices()
                .map(|(i, c)| if c == ':' && i < 10 { '-' } else { c })
                .collect();
            if let Some(off) = text(Tag::OffsetTimeOriginal) {
                t.push(' ');
                t.push_str(&off);
            }
            t
        });
    let orientation = number(Tag::Orientation).and_then(|o| u16::try_from(o).ok());
    let orientation_label = orientation.map(|o| {
        match o {
            1 => "upright",
            2 => "mirrored",
            3 => "upside down (turned 180°)",
            4 => "upside down, mirrored",
            5 => "turned 90° and mirrored",
            6 => "turned 90° clockwise",
            7 => "turned 90° counter-clockwise and mirrored",
            8 => "turned 90° counter-clockwise",
            _ => "unknown",
        }
        .to_string()
    });
    let degrees = |tag: Tag| -> Option<f64> {
        let (d, m, s) = (
            rational(tag, 0)?,
            rational(tag, 1)?,
            rational(tag, 2).unwrap_or(0.0),
        );
        Some(d + m / 60.0 + s / 3600.0)
    };
    let gps = match (degrees(Tag::GPSLatitude), degrees(Tag::GPSLongitude)) {
        (Some(lat), Some(lon)) if lat.is_finite() && lon.is_finite() => {
            let south = text(Tag::GPSLatitudeRef).is_some_and(|r| r.starts_with('S'));
            let west = text(Tag::GPSLongitudeRef).is_some_and(|r| r.starts_with('W'));
            let below = number(Tag::GPSAltitudeRef) == Some(1);
            Some(GpsPosition {
                latitude: if south { -lat } else { lat },
                longitude: if west { -lon } else { lon },
                altitude: rational(Tag::GPSAltitude, 0)
                    .filter(|a| a.is_finite())
                    .map(|a| if below { -a } else { a }),
            })
        }
        _ => None,
    };
    PhotoDetails {
        has_exif: true,
        camera,
        lens,
        exposure: (!exposure.is_empty()).then(|| exposure.join(" · ")),
        taken_at,
        width: number(Tag::PixelXDimension).or_else(|| number(Tag::ImageWidth)),
        height: number(Tag::PixelYDimension).or_else(|| number(Tag::ImageLength)),
        orientation,
        orientation_label,
        gps,
    }
}
