# Shared set-up for scripts/run and scripts/test: installs what is missing and
# skips what is there, so a second run starts at once. Sourced, not run.
# Debian 12 is what it is tested on; other apt-based systems likely work.

set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"

BUILD_PKGS=(build-essential pkg-config curl file libwebkit2gtk-4.1-dev libxdo-dev libssl-dev libayatana-appindicator3-dev librsvg2-dev)
# git: the engine's ignore rules are tested against `git check-ignore` (the test fails without it).
# openssh-server, openssh-client: remote folders are tested against a real sshd the tests start.
# bsdtar (libarchive-tools), unzip, zstd, xz-utils, bzip2: archive listings are tested against
# bsdtar's and made with the compressors (the tests fail without them).
# poppler-utils: PDF pages and facts are rendered by pdftoppm/pdftotext/pdfinfo in the
# sandboxed renderer (the .deb recommends it; the tests fail without it).
# ffmpegthumbnailer, ffmpeg: a video's poster frame and its facts (ffprobe), in the same
# renderer (the .deb recommends both); the tests also make their videos with ffmpeg.
# fontconfig, libharfbuzz-bin, fonts-dejavu-core: a font's facts (fc-query) and sample line
# (hb-view) in the same renderer (the .deb recommends the tools); the tests use DejaVu.
# libvips-tools: TIFF, HEIF and AVIF photos drawn by vips in the renderer (recommended too).
# libheif-examples, woff2: the tests make HEIC/AVIF photos (heif-enc) and WOFF2 fonts with them.
E2E_PKGS=(poppler-utils ffmpegthumbnailer ffmpeg fontconfig libharfbuzz-bin fonts-dejavu-core libvips-tools libheif-examples woff2 xvfb xauth webkit2gtk-driver libcap2-bin procps xdg-utils binutils dbus-daemon util-linux git libarchive-tools unzip zstd xz-utils bzip2 python3 openssh-server openssh-client)

# Each step is announced with the minutes:seconds since the script began
# (bash's SECONDS), so a log shows where the time went.
say() { printf '\033[1m==> [%d:%02d] %s\033[0m\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*" >&2; }

# Clippy gates the suite (`cargo clippy ... -D warnings`): rustup's default
# profile has it; a minimal toolchain gets it added.
ensure_clippy() {
  if cargo clippy --version >/dev/null 2>&1; then return; fi
  if command -v rustup >/dev/null; then
    say "adding clippy (rustup component add clippy)"
    rustup component add clippy
  else
    echo "cargo clippy is missing: install it with your Rust (rustup component add clippy)." >&2; exit 1
  fi
}


version_at_least() { # have want
  [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]
}

check_toolchains() {
  if ! command -v cargo >/dev/null; then
    echo "Rust is missing: install Rust 1.90 or newer with rustup (https://rustup.rs)." >&2; exit 1
  fi
  local rv; rv="$(rustc --version | awk '{print $2}')"
  version_at_least "$rv" 1.90.0 || { echo "Rust $rv is too old: Canopy needs 1.90 or newer (rustup update)." >&2; exit 1; }
  if ! command -v node >/dev/null; then
    echo "Node.js is missing: install Node.js 20.19 or newer." >&2; exit 1
  fi
  local nv; nv="$(node --version | tr -d v)"
  version_at_least "$nv" 20.19.0 || { echo "Node.js $nv is too old: Canopy needs 20.19 or newer." >&2; exit 1; }
}

ensure_apt() { # packages...
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if ! command -v apt-get >/dev/null; then
    echo "Missing system packages (${missing[*]}) and no apt-get here: install their equivalents." >&2; exit 1
  fi
  if [ "$(id -u)" -eq 0 ]; then
    say "installing ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "Canopy needs these Debian packages. Install them with:" >&2
    echo "  sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
}

ensure_npm() {
  if [ ! -f ui/node_modules/.package-lock.json ] || [ ui/package-lock.json -nt ui/node_modules/.package-lock.json ]; then
    say "npm ci (ui/)"
    (cd ui && npm ci --no-audit --no-fund)
  fi
}

ensure_tauri_driver() {
  if ! command -v tauri-driver >/dev/null && [ ! -x "$HOME/.cargo/bin/tauri-driver" ]; then
    say "cargo install tauri-driver"
    cargo install tauri-driver --locked
  fi
  export PATH="$HOME/.cargo/bin:$PATH"
}

# The UI, built by vite (tsc's type check is one of the UI's checks, run by
# scripts/test beside the Rust builds: a build does not check types again).
# A build whose inputs have not changed since it was made is kept: the app
# embeds the folder, and a folder written again (new times) would make cargo
# compile the app again, debug and release, for nothing.
ui_inputs() { # npm script
  (cd ui && { echo "$1"; find index.html public src vite.config.ts tsconfig.json package.json package-lock.json -type f -print0 | sort -z | xargs -0 sha256sum; } | sha256sum | cut -d' ' -f1)
}

vite_build() { # npm script, output folder, what it is
  local want stamp="$REPO/target/ui-inputs/$2"
  want="$(ui_inputs "$1")"
  if [ -f "ui/$2/index.html" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
    say "$3: ui/$2 is up to date"
    return
  fi
  say "building $3 (ui/$2)"
  (cd ui && npm run --silent "$1" >/dev/null)
  mkdir -p "$(dirname "$stamp")"
  echo "$want" >"$stamp"
}

build_ui() {
  vite_build build dist "the UI, what users run"
}

build_ui_e2e() {
  vite_build build:e2e dist-e2e "the test UI, with the page's test hooks"
}

# What users run: optimized, no devtools, no overflow panics, no test hooks,
# embedding ui/dist.
build_release() {
  say "building the release (cargo build --release --locked)"
  cargo build --quiet --release --locked
}

# The test build's configuration, one for everything debug: the app with its
# test seams (`canopy/e2e`: the recorded actions, the canned picker, the slowed
# folder, ui/dist-e2e embedded, and Tauri's mock runtime for the shell's
# tests), canopy-mcp's slow-folder seam, every crate of the workspace. The
# app, its end-to-end tools, every test and the lint share one compilation
# of the Tauri stack because they share these features: tauri's `test`
# feature is part of `e2e`, and clippy lints while the build compiles
# (clippy-driver as the workspace's compiler wrapper, warnings are errors),
# instead of a `cargo clippy` that would check the whole stack once more.
E2E_FEATURES="canopy/e2e,canopy-mcp/e2e"

clippy_driver() {
  if command -v rustup >/dev/null; then rustup which clippy-driver; else command -v clippy-driver; fi
}

# `debug_cargo SUBCOMMAND ARGS...`: cargo on the test build's configuration.
debug_cargo() {
  RUSTC_WORKSPACE_WRAPPER="$(clippy_driver)" CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__" \
    cargo "$1" --locked --workspace --features "$E2E_FEATURES" "${@:2}"
}

# The test build: the app the end-to-end suite drives (target/debug/canopy,
# embedding ui/dist-e2e: src-tauri/build.rs picks the folder by the feature),
# canopy-list, canopy-mcp, every test, example (the dead FUSE mount and the
# OpenSSH server the suite starts) and benchmark, linted as they compile.
build_debug() {
  say "building the test build, linted by clippy (cargo build --workspace --all-targets --features $E2E_FEATURES; warnings are errors)"
  debug_cargo build --quiet --all-targets
}

# The .deb, from the release already built (scripts/package builds it first):
#   target/release/bundle/deb/Canopy_<version>_<arch>.deb
# with /usr/bin/canopy, /usr/bin/canopy-list (and /usr/bin/canopy-mcp when
# that binary is built), icons, and a desktop entry that opens folders.
bundle_deb() {
  local files="\"/usr/bin/canopy-list\": \"$REPO/target/release/canopy-list\""
  if [ -x "$REPO/target/release/canopy-mcp" ]; then
    files="$files, \"/usr/bin/canopy-mcp\": \"$REPO/target/release/canopy-mcp\""
  fi
  say "bundling the .deb (tauri bundle)"
  rm -rf "$REPO/target/release/bundle/deb"
  ui/node_modules/.bin/tauri bundle --ci --bundles deb \
    --config "{\"bundle\": {\"linux\": {\"deb\": {\"files\": {$files}}}}}"
  ls "$REPO"/target/release/bundle/deb/*.deb
}
