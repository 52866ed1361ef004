#!/usr/bin/env bash
# Runs the main job: installs the Debian packages it needs, builds the `ngvi` command-line tool
# (CMake target ngvi_cli) with the `release` preset and runs build/release/app/ngvi with this
# script's arguments. Without arguments it runs `ngvi study`, the main job: every VI method on
# the built-in problems, with its report folder written to ./ngvi-study (report.html, plots,
# results.json), whose path it prints at the end.
#
# Set-up and build output go to stderr, so the program's own standard output stays clean
# (e.g. `bash scripts/run.sh verify --help`, or redirect its output to a file). The program runs
# in the caller's working directory, so relative paths in the arguments mean what the caller
# expects. The exit code is ngvi's: 0 success, 1 a failed check or run, 2 bad usage or input.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

(
  cd "$root"
  bash scripts/install-deps.sh
  cmake --preset release
  cmake --build --preset release --target ngvi_cli
) >&2

if [[ $# -eq 0 ]]; then
  set -- study --out ngvi-study
fi
exec "$root/build/release/app/ngvi" "$@"
