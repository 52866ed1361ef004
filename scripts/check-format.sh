#!/usr/bin/env bash
# Checks that every tracked C++ file is formatted as .clang-format says (clang-format from
# Debian 12, which `scripts/install-deps.sh --ci` installs). Lists each file that differs and
# exits 1 if any does; `--fix` reformats them in place instead. CI runs it before building.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

fix=0
if [[ "${1:-}" == "--fix" ]]; then
  fix=1
elif [[ $# -gt 0 ]]; then
  echo "check-format: unknown argument '$1' (the only one is --fix)" >&2
  exit 2
fi

command -v clang-format >/dev/null 2>&1 || {
  echo "check-format: clang-format not found (bash scripts/install-deps.sh --ci installs it)" >&2
  exit 2
}

mapfile -t files < <(git ls-files '*.hpp' '*.cpp' '*.h')
if [[ $fix -eq 1 ]]; then
  clang-format -i "${files[@]}"
  echo "check-format: formatted ${#files[@]} files with $(clang-format --version)"
  exit 0
fi

differ=()
for f in "${files[@]}"; do
  if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then differ+=("$f"); fi
done
if [[ ${#differ[@]} -gt 0 ]]; then
  echo "check-format: ${#differ[@]} of ${#files[@]} files differ from .clang-format:" >&2
  printf '  %s\n' "${differ[@]}" >&2
  echo "check-format: run 'bash scripts/check-format.sh --fix' (or clang-format -i on them)" >&2
  exit 1
fi
echo "check-format: all ${#files[@]} C++ files match .clang-format ($(clang-format --version))"
