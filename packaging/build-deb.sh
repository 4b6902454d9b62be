#!/usr/bin/env bash
# Builds Framewright's Debian package with cargo-deb (metadata: [package.metadata.deb] in
# Cargo.toml) and prints the .deb's path as the last line.
#
#   packaging/build-deb.sh        release build, then package it (the package to ship)
#   packaging/build-deb.sh --ci   package the debug binary of `cargo build --locked --bin
#                                 framewright` instead (no release build: that takes far too
#                                 long on CI's 2 cores); Debian revision `0ci`, fast compression
#
# Needs dpkg-dev (dpkg-shlibdeps derives the package's dependencies). Installs the pinned
# cargo-deb with `cargo install --locked` when it is missing or another version.
set -euo pipefail
cd "$(dirname "$0")/.."

# 3.8.0 builds with rustc 1.95 (its rust-version is 1.85).
cargo_deb_version="3.8.0"

mode="release"
case "${1:-}" in
  "") ;;
  --ci) mode="ci" ;;
  -h | --help)
    sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
  *)
    echo "build-deb.sh: unknown option '$1' (use --ci or nothing)" >&2
    exit 2
    ;;
esac

if ! command -v dpkg-shlibdeps > /dev/null; then
  echo "build-deb.sh: dpkg-shlibdeps not found; install dpkg-dev (apt-get install dpkg-dev)" >&2
  exit 1
fi
if [ "$(cargo deb --version 2> /dev/null || true)" != "cargo-deb $cargo_deb_version" ]; then
  echo "installing cargo-deb $cargo_deb_version" >&2
  cargo install cargo-deb --version "$cargo_deb_version" --locked >&2
fi

if [ "$mode" = "release" ]; then
  # cargo-deb runs `cargo build --release` itself.
  deb_path="$(cargo deb --locked | tail -n 1)"
else
  # The same command as .ci/run's smoke run, so there it is already up to date.
  cargo build --locked --bin framewright >&2
  # cargo-deb maps the `target/release/` asset prefix to the selected profile's folder
  # (target/debug for dev); it warns that dev builds are not meant for release, which is
  # what the `0ci` revision says too.
  deb_path="$(cargo deb --locked --no-build --profile dev --deb-revision 0ci --fast | tail -n 1)"
fi

if [ ! -s "$deb_path" ]; then
  echo "build-deb.sh: cargo-deb did not report a package (got '$deb_path')" >&2
  exit 1
fi
echo "$deb_path"
