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

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

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

build_ui() {
  say "building the UI (ui/dist: what users run)"
  (cd ui && npm run --silent build >/dev/null)
}

build_ui_e2e() {
  say "building the test UI (ui/dist-e2e: with the page's test hooks)"
  (cd ui && npm run --silent build:e2e >/dev/null)
}

# What users run: optimized, no devtools, no overflow panics, no test hooks,
# embedding ui/dist.
build_release() {
  say "building the release (cargo build --release --locked)"
  cargo build --quiet --release --locked
}

# The end-to-end test build: debug, with the `e2e` feature's test seams,
# embedding ui/dist-e2e (src-tauri/build.rs picks the folder by the feature).
build_app_e2e() {
  say "building the test app (cargo build --features e2e --locked)"
  cargo build --quiet --locked --features e2e
  # The dead FUSE mount the end-to-end suite mounts (a test tool, not shipped).
  cargo build --quiet --locked -p canopy-core --example dead_mount
  # The tests' OpenSSH server (remote.test.mjs), from canopy-sftp's test fixture.
  cargo build --quiet --locked -p canopy-sftp --example test_sshd
}
