#!/usr/bin/env bash
# Idle memory (VmRSS) of the studio as a person uses it: library only, every view visited,
# a paused 1080p video in the viewer, after closing it. Prints RSS after each step and a
# summary table. Needs: Xvfb, xdotool, curl and jq (apt-get install xvfb xdotool curl jq);
# builds nothing, needs no ffmpeg: the 1080p clip is a text-to-video job of a standalone
# sandbox (its own H.264 encoder), fetched over loopback before the studio starts.
#
#   scripts/measure-rss.sh [--bin PATH] [--library N] [--display :N] [--settle-secs S]
#
#   --bin        the studio (default target/release/framewright; build it with
#                `cargo build --locked --release --bin framewright`)
#   --library N  point the studio at a standalone sandbox seeded with N library items
#                (`framewright sandbox --seed-media N`) instead of the embedded one
#   --display    the Xvfb display to start (default :52)
#   --settle-secs  idle time before each reading (default 5)
#   --shots DIR  also save a screenshot after each reading (ImageMagick's `import`), to see
#                that each step showed what it names
#   --smaps DIR  also save /proc/PID/smaps after each reading; `--smaps-summary FILE` sums
#                one of them by mapping (where the resident memory is: heap, code, anon)
#
# Each run has its own FRAMEWRIGHT_HOME (removed at the end) and its own Xvfb at 1440×900.
# Views are visited with the rail's shortcuts (Ctrl+1 … Ctrl+8, src/ui/shortcuts.rs); the
# clip is opened with `framewright --play FILE`, which the running window takes over
# (single instance), paused with K and closed with Esc.
set -euo pipefail
cd "$(dirname "$0")/.."

bin=target/release/framewright
library=0
display=:52
settle_secs=5
shots=""
smaps=""
shot_number=0
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --library) library="$2"; shift 2 ;;
    --display) display="$2"; shift 2 ;;
    --settle-secs) settle_secs="$2"; shift 2 ;;
    --shots) shots="$(realpath "$2")"; mkdir -p "$shots"; shift 2 ;;
    --smaps) smaps="$(realpath "$2")"; mkdir -p "$smaps"; shift 2 ;;
    --smaps-summary)
      # Resident KiB per mapping name (anonymous mappings as "[anon]"), largest first.
      awk '/^[0-9a-f]+-[0-9a-f]+ / { name = (NF >= 6 ? $6 : "[anon]") }
           /^Rss:/ { rss[name] += $2 }
           END { for (n in rss) if (rss[n] >= 512) printf "%9.1f MiB  %s\n", rss[n] / 1024, n }' "$2" |
        sort -rn
      exit 0 ;;
    -h|--help) sed -n 2,26p "$0"; exit 0 ;;
    *) echo "measure-rss: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
for tool in Xvfb xdotool curl jq; do
  command -v "$tool" >/dev/null || { echo "measure-rss: needs $tool" >&2; exit 2; }
done
[ -x "$bin" ] || { echo "measure-rss: no studio binary at $bin" >&2; exit 2; }
bin="$(realpath "$bin")"

home="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$home"
}
trap cleanup EXIT

# start_sandbox NAME ARGS…: a standalone sandbox in the background; sets base_url, api_key.
start_sandbox() {
  local name="$1"; shift
  "$bin" sandbox --port 0 --data "$home/$name" "$@" >"$home/$name.out" 2>"$home/$name.log" &
  pids+=($!)
  sandbox_pid=$!
  for _ in $(seq 1 600); do
    grep -q '^FRAMEWRIGHT_ADMIN_TOKEN=' "$home/$name.out" 2>/dev/null && break
    sleep 0.1
  done
  base_url="$(sed -n 's/^FRAMEWRIGHT_BASE_URL=//p' "$home/$name.out")"
  api_key="$(sed -n 's/^FRAMEWRIGHT_API_KEY=//p' "$home/$name.out")"
  [ -n "$base_url" ] || { echo "measure-rss: the sandbox did not start" >&2; cat "$home/$name.log" >&2; exit 1; }
}

# The 1080p clip: a 4-s 16:9 text-to-video job on a fast sandbox, then that sandbox stops.
start_sandbox clip-sandbox --speed 100
generation_id="$(curl -sf -X POST "$base_url/v1/generate/video" -H "X-API-Key: $api_key" \
  -H 'Content-Type: application/json' \
  -d '{"prompt":"aurora over a frozen lake","model":"google/veo-3","duration":4,"aspect_ratio":"16:9","resolution":"1080p"}' |
  jq -r .generation_id)"
clip_url=""
for _ in $(seq 1 600); do
  status="$(curl -sf "$base_url/v1/generate/$generation_id/status" -H "X-API-Key: $api_key")"
  case "$(jq -r .state <<<"$status")" in
    completed) clip_url="$(jq -r '.result.urls[0]' <<<"$status")"; break ;;
    failed|cancelled) break ;;
  esac
  sleep 0.5
done
[ -n "$clip_url" ] || { echo "measure-rss: the sandbox made no 1080p clip" >&2; exit 1; }
curl -sf -o "$home/clip-1080p.mp4" "$clip_url"
kill "$sandbox_pid"
wait "$sandbox_pid" 2>/dev/null || true

mkdir -p "$home/config"
if [ "$library" -gt 0 ]; then
  # A standalone sandbox with N items; the studio reaches it through a service profile.
  start_sandbox library-sandbox --seed-media "$library"
  cat >"$home/config/settings.json" <<EOF
{"profiles":[{"id":"rss-library","name":"RSS library","kind":"remote","base_url":"$base_url"}],
 "active_profile_id":"rss-library","welcome_seen":true}
EOF
  printf '{"rss-library":"%s"}\n' "$api_key" >"$home/config/secrets.json"
  chmod 600 "$home/config/secrets.json"
else
  echo '{"active_profile_id":"local-sandbox","welcome_seen":true}' >"$home/config/settings.json"
fi

Xvfb "$display" -screen 0 1440x900x24 -nolisten tcp >"$home/xvfb.log" 2>&1 &
pids+=($!)
export DISPLAY="$display" FRAMEWRIGHT_HOME="$home"
# Wait for the server (a loaded machine may take seconds).
for _ in $(seq 1 100); do
  xdotool getdisplaygeometry >/dev/null 2>&1 && break
  sleep 0.1
done
# No D-Bus under Xvfb: keys come from secrets.json.
unset DBUS_SESSION_BUS_ADDRESS
"$bin" --view library --size 1440x860 --tray closed >"$home/studio.log" 2>&1 &
studio=$!
pids+=("$studio")

window=""
for _ in $(seq 1 300); do
  window="$(xdotool search --pid "$studio" 2>/dev/null | head -n 1 || true)"
  [ -n "$window" ] && break
  sleep 0.1
done
[ -n "$window" ] || { echo "measure-rss: the studio opened no window" >&2; tail -n 20 "$home/studio.log" >&2; exit 1; }

rss_mib() {
  awk '/^VmRSS:/ { printf "%.1f", $2 / 1024 }' "/proc/$studio/status"
}
declare -A summary
step() { # NAME: settle, read, print
  sleep "$settle_secs"
  kill -0 "$studio" 2>/dev/null || { echo "measure-rss: the studio exited" >&2; tail -n 20 "$home/studio.log" >&2; exit 1; }
  local rss; rss="$(rss_mib)"
  printf '%-40s %8s MiB\n' "$1" "$rss"
  summary["$1"]="$rss"
  shot_number=$((shot_number + 1))
  if [ -n "$shots" ]; then
    import -window root -display "$display" "$shots/$(printf %02d "$shot_number").png" 2>/dev/null || true
  fi
  if [ -n "$smaps" ]; then
    cp "/proc/$studio/smaps" "$smaps/$(printf %02d "$shot_number")-${1//[^a-zA-Z0-9]/_}.smaps"
  fi
}
key() {
  xdotool windowfocus --sync "$window" 2>/dev/null || true
  xdotool key --clearmodifiers "$1"
}

step "library only"
views=(Create Library Palettes "Visual DNA" Presets Docs Chat Settings)
for i in "${!views[@]}"; do
  key "ctrl+$((i + 1))"
  step "view: ${views[$i]}"
done
key ctrl+2
step "every view visited (back on Library)"
"$bin" --play "$home/clip-1080p.mp4" >>"$home/studio.log" 2>&1 || true
sleep 3 # opens and plays a moment
key k
step "paused 1080p video open"
key Escape
step "after closing the video"

echo
echo "| state | VmRSS (MiB) |"
echo "| --- | --- |"
for name in "library only" "every view visited (back on Library)" "paused 1080p video open" "after closing the video"; do
  echo "| $name | ${summary[$name]} |"
done
