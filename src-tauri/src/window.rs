//! The main window, built from tauri.conf.json (which sets `"create": false`
//! so that it is built here) with what a file browser never needs refused
//! in the webview itself: navigation away from the app's own pages, new
//! windows (`window.open`, `target="_blank"`), and downloads. The page adds
//! the rest (no default context menu: see `ui/src/view/webview-guard.ts`).

use std::path::Path;

use tauri::webview::{DownloadEvent, NewWindowResponse};
use tauri::{AppHandle, Runtime, Url, WebviewWindowBuilder};

/// The label of Canopy's one window (the capability names it).
pub const MAIN: &str = "main";

/// True for a page of the app itself: the embedded UI (`tauri://localhost`
/// on Linux and macOS, `http(s)://tauri.localhost` elsewhere) or, in a
/// development build that loads the Vite server, that server's origin.
pub fn is_app_url(url: &Url, dev_url: Option<&Url>) -> bool {
    match url.scheme() {
        "tauri" => url.host_str() == Some("localhost"),
        "http" | "https" => {
            url.host_str() == Some("tauri.localhost")
                || dev_url.is_some_and(|dev| dev.origin() == url.origin())
        }
        _ => false,
    }
}

/// Notes a refused request in the `e2e` build's action log (so a test can
/// wait for the refusal instead of sleeping); nothing otherwise.
fn refused(what: &str, url: &Url) {
    let _ = crate::commands::record(what, Path::new(url.as_str()));
}

/// Builds the main window from its configuration, with the refusals above.
///
/// # Errors
/// When the configuration has no `main` window or the window cannot be built.
pub fn open_main<R: Runtime>(app: &AppHandle<R>) -> tauri::Result<()> {
    let config = app
        .config()
        .app
        .windows
        .iter()
        .find(|w| w.label == MAIN)
        .cloned()
        .ok_or_else(|| tauri::Error::WindowNotFound)?;
    let dev_url = if tauri::is_dev() {
        app.config().build.dev_url.clone()
    } else {
        None
    };
    WebviewWindowBuilder::from_config(app, &config)?
        .on_navigation(move |url| {
            let ok = is_app_url(url, dev_url.as_ref());
            if !ok {
                refused("navigation-refused", url);
            }
            ok
        })
        .on_new_window(|url, _features| {
            refused("new-window-refused", &url);
            NewWindowResponse::Deny
        })
        .on_download(|_webview, event| {
            if let DownloadEvent::Requested { url, .. } = event {
                refused("download-refused", &url);
            }
            false
        })
        .build()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn only_the_apps_own_pages_are_app_urls() {
        let dev = url("http://localhost:5173");
        assert!(is_app_url(&url("tauri://localhost/index.html"), None));
        assert!(is_app_url(&url("http://tauri.localhost/"), None));
        assert!(is_app_url(
            &url("http://localhost:5173/src/main.ts"),
            Some(&dev)
        ));
        for other in [
            "file:///etc/passwd",
            "https://example.com/",
            "http://localhost:5173/",
            "tauri://evil/",
            "data:text/html,hi",
            "about:blank",
            "blob:tauri://localhost/0",
        ] {
            assert!(!is_app_url(&url(other), None), "{other} must be refused");
        }
    }
}
