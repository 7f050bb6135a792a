#!/usr/bin/env bash
# Installs every Debian package uiscope needs to build, test and run.
# Idempotent and quiet: when everything is present it costs one dpkg-query.
# Sourced by scripts/build; run it directly to install without building.
set -euo pipefail

UISCOPE_BUILD_PACKAGES=(
  cmake g++ make pkg-config ninja-build
  libatspi2.0-dev libdbus-1-dev
  libx11-dev libxext-dev libxtst-dev libxdamage-dev libxfixes-dev libxres-dev
  nlohmann-json3-dev libcli11-dev libspdlog-dev libfmt-dev libxxhash-dev
  libpng-dev libcpp-httplib-dev libwebp-dev libjpeg62-turbo-dev
  libtesseract-dev libleptonica-dev
  libsqlite3-dev
  libopencv-imgproc-dev libopencv-dnn-dev
  # platform/vnc: the VNC client backend.
  libvncserver-dev
)
UISCOPE_RUNTIME_PACKAGES=(
  xvfb openbox dbus at-spi2-core x11-utils fonts-dejavu-core
  tesseract-ocr-eng
)
UISCOPE_TEST_PACKAGES=(
  libgtest-dev libgmock-dev libbenchmark-dev libgtk-3-dev
  python3-pyatspi python3-gi gir1.2-atspi-2.0
  clang libclang-rt-14-dev
  xterm tesseract-ocr python3-tk
  x11-apps gtk-3-examples xclip
  qtbase5-dev libgtk-4-dev chromium
  # tests/web's web.browser.firefox (puppeteer-core over WebDriver BiDi).
  firefox-esr
  libgtk2.0-dev
  # tests/fixtures/heldout/gtk3_form.py (GTK 3 from Python); bench_vision_eval's
  # gnome-calculator and kcalc.
  gir1.2-gtk-3.0 gnome-calculator kcalc
  # tests/realapp (label realapp): the seed's workflows on real apps.
  libreoffice-calc libreoffice-gtk3 gimp inkscape gedit unzip
  # tests/platform's VNC tests and bench_vnc: x11vnc on a headless display,
  # TigerVNC's Xvnc with a password file made by vncpasswd -f.
  x11vnc tigervnc-standalone-server tigervnc-tools
  # tests/tools' hostile-text test: what a terminal emulator shows of the CLI.
  tmux
)
# The real-task suite (scripts/tasks only; scripts/test does not install
# these): apps its tasks drive beyond the test packages above.
UISCOPE_TASK_PACKAGES=(
  zenity mousepad yad thunar evince libreoffice-writer kdialog
)
# Training the learned detector (scripts/train-vision only; scripts/test does
# not install these): the window generators' toolkits, ImageMagick's import for
# Tk captures, xwd for GTK 4 captures, and PyTorch (CPU) to train and export
# the ONNX model; Chromium for the HTML pages.
UISCOPE_TRAINING_PACKAGES=(
  python3-gi gir1.2-gtk-3.0 gir1.2-gtk-4.0 python3-pyqt5 python3-tk python3-numpy
  python3-torch imagemagick xvfb x11-apps chromium qt5-style-plugins
)

uiscope_missing_packages() {
  local pkg
  for pkg in "$@"; do
    if ! dpkg-query -W -f='${Status}\n' "$pkg" 2>/dev/null | grep -q '^install ok installed$'; then
      echo "$pkg"
    fi
  done
}

uiscope_install() {
  local missing
  missing=$(uiscope_missing_packages "$@")
  [[ -z "$missing" ]] && return 0
  local sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
  echo "uiscope: installing $(echo $missing | wc -w) Debian packages: $(echo $missing)" >&2
  export DEBIAN_FRONTEND=noninteractive
  # Update the package index once if it is empty or older than a day.
  if [[ ! -d /var/lib/apt/lists/partial ]] || \
     [[ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | head -1)" ]]; then
    $sudo apt-get update -qq >&2
  fi
  # Several builds on one machine may install at once: wait for dpkg's lock
  # instead of failing on it.
  # shellcheck disable=SC2086
  if ! $sudo apt-get install -y -qq -o DPkg::Lock::Timeout=600 --no-install-recommends $missing >/dev/null; then
    $sudo apt-get update -qq >&2
    # shellcheck disable=SC2086
    $sudo apt-get install -y -qq -o DPkg::Lock::Timeout=600 --no-install-recommends $missing >/dev/null
  fi
}

# Node.js and npm run the MCP test tooling (the official SDK client and the
# conformance suite). A node already on PATH is used as it is; otherwise
# Debian's.
uiscope_install_node() {
  if command -v node >/dev/null && command -v npm >/dev/null; then return 0; fi
  uiscope_install nodejs npm
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  uiscope_install "${UISCOPE_BUILD_PACKAGES[@]}" "${UISCOPE_RUNTIME_PACKAGES[@]}" "${UISCOPE_TEST_PACKAGES[@]}"
fi
