//! Where a name falls in a folder's order: a prefix (type-ahead), or an
//! entry by its exact name on the way to a path (revealing a Find hit:
//! every folder from the open one down gets the position of the next
//! step, so the window can load that page even past the cap).
#![forbid(unsafe_code)]

use std::cmp::Ordering;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::time::Instant;

use crate::bounded::{self, Place, Watch};
use crate::error::{CanopyError, ErrorCode};
use crate::filter::NameFilter;
use crate::ignore_pattern::Meter;
use crate::limits::{REQUEST_TIME, TIME_BUDGET};
use crate::names::{decode_handle, encode_handle};
use crate::order::{sort_key_for, starts_with_folded, Group, Order, Primary};
use crate::select::{pass, Reading, Stop};
use crate::source::{Source, SourceFolder};
use crate::walk::stat_deadline;
use crate::wire::{ListSettings, LocateRequest, Located, RevealRequest, RevealStep, Revealed};

/// What is looked for in a folder's order.
#[derive(Clone, Copy)]
enum Wanted<'a> {
    /// The first entry whose name starts with it (case folded).
    Prefix(&'a [u8]),
    /// The entry of exactly this name.
    Exact(&'a [u8]),
}

/// Finds where a name prefix falls in a folder's order (for type-ahead),
/// under the request's order, filter, dotfile and ignore settings: the
/// position is the one the entry has in a listing made with them.
///
/// Two passes over the folder, O(1) memory: the first finds the first entry
/// (in the order) whose name starts with the prefix, the second counts the
/// entries before it. Under the size or modified order each pass `lstat`s
/// every entry.
///
/// # Errors
/// `INVALID_ARGUMENT` for a bad handle or filter; the folder's code when it
/// cannot be read; `TIMEOUT` when a pass exceeds the time budget.
pub fn locate<S: Source>(source: &S, req: &LocateRequest) -> Result<Located, CanopyError> {
    let path = decode_handle(&req.folder)?;
    let filter = crate::filter::of_settings(&req.settings)?;
    let (req, source) = (req.clone(), source.clone());
    bounded::call(Place::path(&path), TIME_BUDGET, move |watch| {
        let wanted = Wanted::Prefix(req.prefix.as_bytes());
        locate_in(
            &source,
            &path,
            &req.settings,
            wanted,
            filter.as_ref(),
            watch,
        )
    })?
}

/// The way from the folder `root` down to the entry `target` below it:
/// for each folder on it (`root` first), the position of its next step in
/// its order under the request's settings (as [`locate`] finds a prefix;
/// a folder's filter plays no part). Each folder is read on a bounded
/// worker with `TIME_BUDGET`, as `locate` reads one.
///
/// # Errors
/// `INVALID_ARGUMENT` for a bad handle or a target not below the root;
/// `NOT_FOUND` when a step is not in its folder (it went, or the settings
/// hide it); a folder's own code when it cannot be read; `TIMEOUT`.
pub fn reveal<S: Source>(source: &S, req: &RevealRequest) -> Result<Revealed, CanopyError> {
    let root = decode_handle(&req.root)?;
    let target = decode_handle(&req.target)?;
    let rel = target
        .strip_prefix(&root)
        .ok()
        .filter(|r| !r.as_os_str().is_empty())
        .ok_or_else(|| CanopyError::invalid("the entry is not below the folder"))?;
    let settings = ListSettings {
        filter: None,
        ..req.settings.clone()
    };
    let mut steps = Vec::new();
    let mut folder = root.clone();
    for name in rel.iter() {
        let entry = folder.join(name);
        let (s, path, set) = (source.clone(), folder.clone(), settings.clone());
        let name = name.as_bytes().to_vec();
        let at = bounded::call(Place::path(&folder), TIME_BUDGET, move |watch| {
            locate_in(&s, &path, &set, Wanted::Exact(&name), None, watch)
        })??;
        steps.push(RevealStep {
            folder: encode_handle(&folder),
            entry: encode_handle(&entry),
            index: at.index,
            total: at.total,
        });
        folder = entry;
    }
    Ok(Revealed { steps })
}

fn locate_in<S: Source>(
    source: &S,
    path: &Path,
    settings: &ListSettings,
    wanted: Wanted<'_>,
    filter: Option<&NameFilter>,
    watch: &Watch,
) -> Result<Located, CanopyError> {
    let dir = source
        .open_folder(path)
        .map_err(|e| CanopyError::from_io(&e, "cannot open folder"))?;
    let (id, _) = dir
        .identity()
        .map_err(|e| CanopyError::from_io(&e, "cannot examine folder"))?;
    watch
        .reached(Place::Device(id.dev))
        .map_err(|u| u.error())?;
    // Over a link each batch has `TIME_BUDGET` and the folder a request's time.
    let paced = source.paced();
    let budget = if paced { REQUEST_TIME } else { TIME_BUDGET };
    let deadline = Instant::now() + budget;
    let renew = || watch.renew(Instant::now() + TIME_BUDGET);
    let rules = settings.hide_ignored.then(|| {
        source
            .ignore_rules(path, &mut Meter::new(Some(deadline), None))
            .0
    });
    let order = Order {
        by: settings.sort,
        reverse: settings.reverse,
    };
    let rd = Reading {
        show_dotfiles: settings.show_dotfiles,
        deadline,
        stat_deadline: stat_deadline(deadline),
        cancel: None,
        order,
        filter,
        rules: rules.as_ref(),
        exclude: None,
        tally: false,
        before_call: paced.then_some(&renew as &dyn Fn()),
    };
    let read = |each: &mut dyn FnMut(&crate::select::Seen<'_>)| -> Result<u64, CanopyError> {
        let p = pass(&dir, &rd, each).map_err(|Stop::Cancelled| CanopyError::cancelled())?;
        if p.timed_out {
            // Not `timeout_error`: locate shows nothing of what it read.
            return Err(CanopyError::new(
                ErrorCode::Timeout,
                format!(
                    "finding the prefix in this folder took longer than {} ms",
                    budget.as_millis()
                ),
            ));
        }
        if let Some(e) = &p.failed {
            return Err(CanopyError::from_io(e, "cannot read folder"));
        }
        Ok(p.total)
    };
    let mut best: Option<(Vec<u32>, Box<[u8]>)> = None;
    let mut key = Vec::new();
    let total = read(&mut |e| {
        let wanted = match wanted {
            Wanted::Prefix(prefix) => starts_with_folded(e.name, prefix),
            Wanted::Exact(name) => e.name == name,
        };
        if !wanted {
            return;
        }
        sort_key_for(order, Group::of(e.kind), e.primary, e.name, &mut key);
        if best
            .as_ref()
            .is_none_or(|(k, n)| order.compare_keyed(&key, e.name, k, n) == Ordering::Less)
        {
            best = Some((key.clone(), e.name.into()));
        }
    })?;
    let matched = best.is_some();
    let prefix = match wanted {
        Wanted::Prefix(p) => p,
        Wanted::Exact(_) if !matched => {
            return Err(CanopyError::new(
                ErrorCode::NotFound,
                "it is not in its folder (it went, or the view's settings hide it)",
            ))
        }
        Wanted::Exact(n) => n,
    };
    let (tk, tn) = best.unwrap_or_else(|| {
        let primary = if order.needs_stat() {
            Primary::Missing
        } else {
            Primary::None
        };
        let mut k = Vec::new();
        sort_key_for(order, Group::Other, primary, prefix, &mut k);
        (k, prefix.into())
    });
    let mut index = 0u64;
    read(&mut |e| {
        sort_key_for(order, Group::of(e.kind), e.primary, e.name, &mut key);
        if order.compare_keyed(&key, e.name, &tk, &tn) == Ordering::Less {
            index += 1;
        }
    })?;
    Ok(Located {
        index,
        matched,
        total,
    })
}
