#!/bin/sh
# Installs, from Debian's registry, whatever decodesim needs that this machine lacks.
# Run as root (or with sudo available). Does nothing when everything is present.
# `install-deps.sh test` adds what the test suite needs beyond the build: Python's venv, pip,
# setuptools and wheel (the suite pip-installs the package into a fresh venv), pandas and matplotlib
# (the Python tests' data frames and docs/python.md's notebook), Chromium (the report is
# rendered in it) and clang 14 with libFuzzer and its sanitizer runtimes (the fuzz targets), and
# what the browser explorer's build needs (scripts/build-web.sh): emscripten, and curl, dpkg-dev
# and xz-utils to fetch and unpack yaml-cpp's Debian source package.
set -eu

packages="g++ cmake make ninja-build libeigen3-dev libyaml-cpp-dev libspdlog-dev doctest-dev libcli11-dev nlohmann-json3-dev libfmt-dev libbenchmark-dev pybind11-dev python3-dev python3-numpy"
if [ "${1:-}" = "test" ]; then
    packages="$packages python3-venv python3-pip python3-setuptools python3-wheel python3-pandas python3-matplotlib chromium clang-14 libfuzzer-14-dev libclang-rt-14-dev emscripten curl dpkg-dev xz-utils"
fi

missing=""
for package in $packages; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $package"
    fi
done

if [ -z "$missing" ]; then
    exit 0
fi

echo "decodesim: installing:$missing" >&2
if [ "$(id -u)" -eq 0 ]; then
    run=""
elif command -v sudo >/dev/null 2>&1; then
    run="sudo"
else
    echo "decodesim: error: missing packages:$missing; run this script as root" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$run apt-get update -qq
# shellcheck disable=SC2086
$run apt-get install -y -qq --no-install-recommends $missing >/dev/null
