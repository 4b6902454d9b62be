#!/usr/bin/env bash
# Screenshots of every view at the sizes the layout must hold (960×600, 1024×700,
# 1440×900, 2560×1440), with the job tray closed and open, each on a fresh embedded
# sandbox under Xvfb. "Tray open" pictures have a finished job in the tray (the video
# and storyboard scenes make theirs; the other views stage one image job).
#   scripts/screenshots.sh [OUT_DIR] [BINARY]
# Names: VIEW-WxH.png (tray closed) and VIEW-WxH-tray.png (tray open). OUT_DIR defaults
# to target/screenshots; the 1440×900 ones are what docs/screenshots holds.
# Environment: VIEWS and SIZES (space-separated) pick a subset; JOBS runs that many at
# once (default 1: the studio and its sandbox need a core each).
# Not run by .ci/run (80 captures take minutes); run it after layout changes and look.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-target/screenshots}"
bin="${2:-target/debug/framewright}"
views="${VIEWS:-create library palettes visual-dna presets settings video storyboard video-edit docs chat music transcript 3d}"
sizes="${SIZES:-960x600 1024x700 1440x900 2560x1440}"
jobs="${JOBS:-1}"
mkdir -p "$out"

# One capture: SIZE VIEW TRAY (closed|open).
capture() {
  local size="$1" view="$2" tray="$3" suffix="" home shot
  [ "$tray" = open ] && suffix="-tray"
  shot="$out/$view-$size$suffix.png"
  home="$(mktemp -d)"
  # The staged scenes at 2560×1440 take a while on a software renderer: a generous limit.
  FRAMEWRIGHT_HOME="$home" FRAMEWRIGHT_SANDBOX_SPEED=20 timeout 300 \
    xvfb-run -a -s "-screen 0 ${size}x24" "$bin" --screenshot-to "$shot" \
    --view "$view" --size "$size" --tray "$tray" >"$home/run.log" 2>&1 || true
  # xvfb-run does not always pass a failure on: the picture is the proof.
  if [ ! -s "$shot" ]; then
    echo "screenshot $view at $size (tray $tray) failed:" >&2
    tail -n 5 "$home/run.log" >&2
  fi
  rm -rf "$home"
}
export -f capture
export out bin

for size in $sizes; do
  for view in $views; do
    for tray in closed open; do
      printf '%s %s %s\n' "$size" "$view" "$tray"
    done
  done
done | xargs -P "$jobs" -L 1 bash -c 'capture "$0" "$1" "$2"'
ls -1 "$out"
