//! The window's size and position, read as it changes and applied at start,
//! fitted to the monitors there are now (`canopy_core::saved_view::fit_to_screen`).

use canopy_core::saved_view::{fit_to_screen, WindowPlacement, WorkArea};
use tauri::{PhysicalPosition, PhysicalSize, Runtime, WebviewWindow, Window};

/// The window's placement now; while maximized, the size it had before
/// (from `previous`) is kept, so un-maximizing after a restart restores it.
pub fn read<R: Runtime>(
    w: &Window<R>,
    previous: Option<WindowPlacement>,
) -> Option<WindowPlacement> {
    if w.is_maximized().unwrap_or(false) {
        return previous.map(|p| WindowPlacement {
            maximized: true,
            ..p
        });
    }
    let (Ok(pos), Ok(size)) = (w.outer_position(), w.inner_size()) else {
        return previous;
    };
    if w.is_minimized().unwrap_or(false) || size.width == 0 || size.height == 0 {
        return previous;
    }
    Some(WindowPlacement {
        x: pos.x,
        y: pos.y,
        width: size.width,
        height: size.height,
        maximized: false,
    })
}

/// The monitors' work areas, the primary monitor's first.
fn work_areas<R: Runtime>(w: &WebviewWindow<R>) -> Vec<WorkArea> {
    let primary = w.primary_monitor().ok().flatten();
    let others = w.available_monitors().unwrap_or_default();
    primary
        .into_iter()
        .chain(others)
        .map(|m| {
            let area = m.work_area();
            WorkArea {
                x: area.position.x,
                y: area.position.y,
                width: area.size.width,
                height: area.size.height,
            }
        })
        .collect()
}

/// Puts the window where it was, fitted to the monitors' work areas: never
/// larger than one, never placed off all of them; with no monitor known,
/// nothing remembered is applied.
pub fn apply<R: Runtime>(w: &WebviewWindow<R>, p: WindowPlacement) {
    let Some(fitted) = fit_to_screen(p, &work_areas(w)) else {
        return;
    };
    let _ = w.set_size(PhysicalSize::new(fitted.width, fitted.height));
    if let Some((x, y)) = fitted.position {
        let _ = w.set_position(PhysicalPosition::new(x, y));
    }
    if fitted.maximized {
        let _ = w.maximize();
    }
}
