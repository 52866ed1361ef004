#!/usr/bin/env bash
# Builds ngvi and runs its tests: installs the Debian packages it needs (with the test-only ones:
# Chromium for the browser test of report.html, GoogleTest), configures and
# builds the `release` preset (build/release) and runs CTest on it. Exits non-zero if anything
# fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install-deps.sh --test
cmake --preset release
cmake --build --preset release
ctest --preset release
