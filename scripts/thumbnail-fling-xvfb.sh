#!/usr/bin/env bash
# Thumbnails after a fling in the real studio under Xvfb (docs/BENCHMARKS.md, "Thumbnails
# after a fling"): a library of 3,000 seeded items at 1440x900, a fling of wheel clicks with
# xdotool, and the time from the last click to the studio's DEBUG line "the last visible
# thumbnail placeholder was filled" (its at_unix_ms). Empty thumbnail cache every run.
# Prints one line per run, then the cache folder's size after all runs.
#
# Usage: scripts/thumbnail-fling-xvfb.sh [BINARY] [DISPLAY_NUMBER] [RUNS]
#   BINARY defaults to target/release/framewright (cargo build --locked --release).
# Needs Xvfb and xdotool.
set -euo pipefail
bin=${1:-target/release/framewright}
display_number=${2:-51}
runs=${3:-3}
clicks=${FLING_CLICKS:-30}

home=$(mktemp -d)
export FRAMEWRIGHT_HOME=$home
mkdir -p "$home/config"
echo '{"active_profile_id":"local-sandbox","welcome_seen":true,"ui":{"last_view":"library"}}' \
    >"$home/config/settings.json"

# Seed the embedded sandbox's folder once with the standalone sandbox, then stop it.
"$bin" sandbox --data "$home/data/sandbox" --seed-media 3000 >"$home/sandbox.out" 2>&1 &
sandbox_pid=$!
for _ in $(seq 1 300); do
    grep -q "added 3000 library items" "$home/sandbox.out" && break
    sleep 0.2
done
kill "$sandbox_pid" 2>/dev/null || true
wait "$sandbox_pid" 2>/dev/null || true

Xvfb ":$display_number" -screen 0 1440x900x24 >/dev/null 2>&1 &
xvfb_pid=$!
trap 'kill "$xvfb_pid" 2>/dev/null || true' EXIT
export DISPLAY=":$display_number"
sleep 1

log="$home/logs/framewright.log"
filled() {
    local n
    n=$(grep -c "last visible thumbnail placeholder was filled" "$log" 2>/dev/null) || true
    echo "${n:-0}"
}

for run in $(seq 1 "$runs"); do
    rm -rf "$home/cache/thumbnails"
    RUST_LOG=${RUST_LOG:-info,framewright::ui::app=debug} "$bin" --view library --size 1440x900 \
        >"$home/studio-$run.out" 2>&1 &
    studio_pid=$!
    # The first screen's thumbnails are in.
    for _ in $(seq 1 300); do
        [ "$(filled)" -ge 1 ] && break
        sleep 0.1
    done
    sleep 0.5
    window=$(xdotool search --sync --onlyvisible --pid "$studio_pid" | head -n 1)
    xdotool windowfocus --sync "$window" 2>/dev/null || true
    xdotool mousemove --window "$window" 600 450
    before=$(filled)
    xdotool click --repeat "$clicks" --delay 10 5
    last_click_ms=$(date +%s%3N)
    sleep 3
    line=$(grep "last visible thumbnail placeholder was filled" "$log" | tail -n 1)
    at_ms=$(sed -n 's/.*at_unix_ms=\([0-9]*\).*/\1/p' <<<"$line")
    if [ "$(filled)" -gt "$before" ] && [ -n "$at_ms" ]; then
        echo "run $run: last placeholder filled $((at_ms - last_click_ms)) ms after the last wheel click"
    else
        echo "run $run: no new 'filled' line (did the grid move?)"
    fi
    kill "$studio_pid" 2>/dev/null || true
    wait "$studio_pid" 2>/dev/null || true
    # Each run starts a new log line count from here.
done
files=$(find "$home/cache/thumbnails" -type f 2>/dev/null | wc -l)
bytes=$(du -sb "$home/cache/thumbnails" 2>/dev/null | cut -f1)
echo "thumbnail cache after the last run: $files files, ${bytes:-0} bytes"
echo "logs: $log"
