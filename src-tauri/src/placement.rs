//! The window's size and position, read as it changes and applied at start.

use canopy_core::saved_view::WindowPlacement;
use tauri::{PhysicalPosition, PhysicalSize, Runtime, WebviewWindow, Window};

/// The window's placement now; while maximized, the size it had before
/// (from `previous`) is kept, so un-maximizing after a restart restores it.
pub fn read<R: Runtime>(w: &Window<R>, previous: Option<WindowPlacement>) -> Option<WindowPlacement> {
    if w.is_maximized().unwrap_or(false) {
        return previous.map(|p| WindowPlacement { maximized: true, ..p });
    }
    let (Ok(pos), Ok(size)) = (w.outer_position(), w.inner_size()) else { return previous };
    if w.is_minimized().unwrap_or(false) || size.width == 0 || size.height == 0 {
        return previous;
    }
    Some(WindowPlacement { x: pos.x, y: pos.y, width: size.width, height: size.height, maximized: false })
}

/// Puts the window where it was: its size always, its position only when
/// that is on a monitor that is still there.
pub fn apply<R: Runtime>(w: &WebviewWindow<R>, p: WindowPlacement) {
    let _ = w.set_size(PhysicalSize::new(p.width, p.height));
    let on_screen = w.available_monitors().unwrap_or_default().iter().any(|m| {
        let (mp, ms) = (m.position(), m.size());
        p.x >= mp.x && p.y >= mp.y && p.x < mp.x + ms.width as i32 && p.y < mp.y + ms.height as i32
    });
    if on_screen {
        let _ = w.set_position(PhysicalPosition::new(p.x, p.y));
    }
    if p.maximized {
        let _ = w.maximize();
    }
}
