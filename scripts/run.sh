#!/usr/bin/env bash
# Runs the main job: installs the Debian packages it needs, builds ngvi_demo with the `release`
# preset and runs build/release/examples/ngvi_demo with this script's arguments.
#
# Set-up and build output go to stderr, so the program's own standard output stays clean
# (e.g. `bash scripts/run.sh --help`, or redirect its output to a file). The program runs in the
# caller's working directory, so relative paths in the arguments mean what the caller expects.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

(
  cd "$root"
  bash scripts/install-deps.sh
  cmake --preset release
  cmake --build --preset release --target ngvi_demo
) >&2

exec "$root/build/release/examples/ngvi_demo" "$@"
