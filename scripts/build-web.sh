#!/bin/sh
# Builds the browser explorer (docs/explorer.md) into build-web/web: index.html, explorer.js,
# explorer.css and decodesim.js (the engine as WebAssembly, inlined). Needs Debian's emscripten,
# cmake, curl and dpkg-source (scripts/install-deps.sh test installs them).
# yaml-cpp has no wasm build in Debian, so its Debian source package is fetched once into
# build-web/deps, checked against the checksums below, and compiled as part of the build.
#   sh scripts/build-web.sh [BUILD_FOLDER]     (default build-web)
# DECODESIM_WEB_OPTIMIZE sets the optimization level (default -O3, the explorer as published);
# ./make.sh test builds its check at -O1: the same code, about a sixth less compile time.
set -eu
cd "$(dirname "$0")/.."
build=${1:-build-web}
jobs=${DECODESIM_WEB_JOBS:-$(nproc 2>/dev/null || echo 2)}

# emscripten's JS optimizer looks for acorn among Debian's node modules.
NODE_PATH=${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs
export NODE_PATH

# The Debian archive is reached the way apt reaches it: through apt's proxy, when it has one.
proxy=$(apt-config dump 2>/dev/null | sed -n 's/^Acquire::http::Proxy "\(.*\)";$/\1/p' | head -n 1)
if [ -n "$proxy" ] && [ -z "${http_proxy:-}" ]; then
    http_proxy=$proxy
    export http_proxy
fi

pool=http://deb.debian.org/debian/pool/main/y/yaml-cpp
version=0.7.0+dfsg-8
orig=yaml-cpp_0.7.0+dfsg.orig.tar.xz
orig_sha256=dc63708605404e0b963e0ca3a9619d1c8270eda2839603e6fa0384e5e51e5312
debian=yaml-cpp_$version.debian.tar.xz
debian_sha256=d2d09d2e54215b5865d5dfd4a92ec887c261f9c19c0b2521303647505127163e
deps=$build/deps
source=$deps/yaml-cpp-$version

if [ ! -f "$source/CMakeLists.txt" ]; then
    mkdir -p "$deps"
    for file in yaml-cpp_$version.dsc $orig $debian; do
        [ -f "$deps/$file" ] || curl -fsSL --retry 3 -o "$deps/$file.part" "$pool/$file"
        [ -f "$deps/$file" ] || mv "$deps/$file.part" "$deps/$file"
    done
    # The .dsc's signature needs Debian's keyring; the tarballs are pinned by hash instead.
    (cd "$deps" && printf '%s  %s\n%s  %s\n' "$orig_sha256" "$orig" "$debian_sha256" "$debian" | sha256sum -c --quiet -)
    rm -rf "$source"
    # Unpacks the upstream tarball and applies Debian's patches (debian/patches/series).
    (cd "$deps" && dpkg-source --no-check -x "yaml-cpp_$version.dsc" "yaml-cpp-$version" >/dev/null)
fi

# Ninja for a new folder, as ./make.sh builds (docs/performance.md); a folder configured before
# keeps its generator.
generator=""
if [ ! -f "$build/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then generator="-GNinja"; fi
optimize=${DECODESIM_WEB_OPTIMIZE:--O3}
emcmake cmake -S . -B "$build" $generator -DDECODESIM_WEB=ON -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS_RELEASE="$optimize -DNDEBUG" \
    -DDECODESIM_YAML_CPP_SOURCE="$(pwd)/$source" >/dev/null
cmake --build "$build" -j "$jobs" --target decodesim_web
echo "decodesim: explorer built: $build/web/index.html" >&2
