//! Type-ahead: where a name prefix falls in a folder's order.
#![forbid(unsafe_code)]

use std::cmp::Ordering;
use std::path::Path;
use std::time::Instant;

use crate::bounded::{self, Place, Watch};
use crate::error::{CanopyError, ErrorCode};
use crate::filter::NameFilter;
use crate::ignore_pattern::Meter;
use crate::limits::{REQUEST_TIME, TIME_BUDGET};
use crate::names::decode_handle;
use crate::order::{sort_key_for, starts_with_folded, Group, Order, Primary};
use crate::select::{pass, Reading, Stop};
use crate::source::{Source, SourceFolder};
use crate::walk::stat_deadline;
use crate::wire::{LocateRequest, Located};

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
        locate_in(&source, &path, &req, filter.as_ref(), watch)
    })?
}

fn locate_in<S: Source>(
    source: &S,
    path: &Path,
    req: &LocateRequest,
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
    let settings = &req.settings;
    let rules = settings.hide_ignored.then(|| {
        source
            .ignore_rules(path, &mut Meter::new(Some(deadline), None))
            .0
    });
    let prefix = req.prefix.as_bytes();
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
        if !starts_with_folded(e.name, prefix) {
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
