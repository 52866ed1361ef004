#!/usr/bin/env bash
# Installs the Debian 12 packages that building and running ngvi needs (Open MPI included: the
# distributed module and its mpirun tests are built when CMake finds it); with --test also those
# only its tests need: Chromium (the browser test of report.html) and GoogleTest (the test of the
# derivative-check macros for GoogleTest users); with --ci also those only CI's other stages need
# (.ci/run): clang with its runtime libraries (the libFuzzer target of the file readers, built
# with -fsanitize=fuzzer,address) and clang-format (the formatting check, scripts/check-format.sh).
#
# Skips apt entirely when every package is already installed, so reruns cost nothing. Runs as
# root directly (as on CI) or through sudo when available; never prompts (noninteractive).
# Installs no recommended packages: with them the --test set was 210 packages and 85 s on a fresh
# 2-core machine (ImageMagick, groff, Open MPI's Fortran coarrays, X11 utilities ...), without
# them 73 packages and 37 s, and every test passes (gnuplot draws its text with DejaVu, which
# fontconfig depends on).
set -euo pipefail

packages=(
  build-essential
  cmake
  ninja-build
  libeigen3-dev
  liblapacke-dev
  libboost-test-dev
  libboost-math-dev
  libtbb-dev
  libfmt-dev
  libcli11-dev
  nlohmann-json3-dev
  libbenchmark-dev
  gnuplot-nox
  libopenmpi-dev
  openmpi-bin
)
case "${1:-}" in
  "") ;;
  --test | --ci)
    packages+=(chromium-headless-shell libgtest-dev)
    if [[ "$1" == "--ci" ]]; then
      packages+=(clang clang-format libclang-rt-dev)
    fi
    ;;
  *)
    echo "install-deps: unknown argument '$1' (the choices are --test and --ci)" >&2
    exit 2
    ;;
esac

missing=()
for pkg in "${packages[@]}"; do
  status="$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)"
  if [[ "$status" != "install ok installed" ]]; then
    missing+=("$pkg")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#packages[@]} Debian packages already installed"
  exit 0
fi

if [[ "$(id -u)" -eq 0 ]]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "install-deps: missing packages (${missing[*]}) and neither root nor sudo available" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
"${as_root[@]}" apt-get update
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
  "${packages[@]}" </dev/null
