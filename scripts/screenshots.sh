#!/usr/bin/env bash
# Screenshots of every view at the sizes the layout must hold (960×600, 1024×700,
# 1440×900, 2560×1440), each on a fresh embedded sandbox under Xvfb.
#   scripts/screenshots.sh [OUT_DIR] [BINARY]
# OUT_DIR defaults to target/screenshots; the 1440×900 ones are what docs/screenshots holds.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-target/screenshots}"
bin="${2:-target/debug/framewright}"
mkdir -p "$out"
for size in 960x600 1024x700 1440x900 2560x1440; do
  for view in create library palettes presets settings video storyboard video-edit docs chat; do
    home="$(mktemp -d)"
    FRAMEWRIGHT_HOME="$home" FRAMEWRIGHT_SANDBOX_SPEED=20 timeout 120 \
      xvfb-run -a -s "-screen 0 ${size}x24" "$bin" --screenshot-to "$out/$view-$size.png" --view "$view" --size "$size" \
      >/dev/null 2>&1 || echo "screenshot $view at $size failed" >&2
    rm -rf "$home"
  done
done
ls -1 "$out"
