#!/usr/bin/env bash
# install-deps.sh — install what attnlab needs to build and test, from Debian 12 packages.
#
# Checks each package with dpkg and calls apt-get only for the missing ones (and fetches yaml-cpp's source, for
# the browser build, once: below), so on a machine that has
# everything it does nothing (and needs no network). Runs apt-get through sudo when not root.
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config ccache   # compiler and build (ccache: faster rebuilds)
  libeigen3-dev                             # matrices (tensor maps, GEMM)
  libopenblas-serial-dev                    # OpenBLAS, a product backend (model.gemm: blas; auto picks it)
  libspdlog-dev                             # logging
  libyaml-cpp-dev                           # configs
  libsentencepiece-dev                      # subword tokenizers
  doctest-dev                               # tests
  libcli11-dev                              # command line
  nlohmann-json3-dev                        # JSON (safetensors headers, metrics)
  python3-numpy                             # only for the test that opens our safetensors files from Python
  python3-nltk                              # only for the test that compares our BLEU with NLTK's
  libmicrohttpd-dev                         # the HTTP server of `attnlab serve` (GNU libmicrohttpd)
  chromium                                  # only for the test that opens the attention and report pages
  chromium-driver python3-selenium          # only for the explorer's browser tests (tests/inspect/explorer_browser_test.py)
  jq                                        # tools/compare.sh reads metrics.jsonl with it
  gdb                                       # the debugger walkthrough; tests/tools/gdb_test.sh checks tools/gdb/
  universal-ctags                           # tests/build/namespace_test.sh: ctags lists every function of src/
  clang-format                              # tests/build/include_sorting_test.sh: includes in clang-format's order
  clang libclang-rt-14-dev libomp-14-dev    # the fuzz and sanitize presets: clang, libFuzzer, OpenMP
  openmpi-bin libopenmpi-dev                # data parallelism: mpirun -np N attnlab train (optional at build time)
  emscripten                                # the browser build (cmake --preset wasm; cmake/browser.cmake, tools/web.sh)
)
if [ "${1:-}" = "--print" ]; then printf '%s\n' "${packages[@]}"; exit 0; fi

if [ "$(id -u)" -eq 0 ]; then sudo=(); else sudo=(sudo); fi
export DEBIAN_FRONTEND=noninteractive

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# yaml-cpp's source, for the browser build (cmake/browser.cmake compiles it to WebAssembly): Debian ships the
# library compiled for this machine only, so the source comes from Debian's own source package of the release
# libyaml-cpp-dev was built from (apt-get source; its headers stay libyaml-cpp-dev's), unpacked once into
# build/deps/yaml-cpp. apt-get source needs a deb-src line; one is added for Debian's archive if none answers.
cd "$(dirname "$0")/.."
yaml_source=build/deps/yaml-cpp
if [ ! -f "$yaml_source/src/parse.cpp" ]; then
  if ! apt-get source --print-uris -qq yaml-cpp >/dev/null 2>&1; then
    echo "install-deps: adding Debian's source archive (deb-src) to fetch yaml-cpp's source for the browser build"
    printf '%s\n' "Types: deb-src" "URIs: http://deb.debian.org/debian" "Suites: bookworm bookworm-updates" \
      "Components: main" "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" |
      "${sudo[@]}" tee /etc/apt/sources.list.d/attnlab-debian-src.sources >/dev/null
    "${sudo[@]}" apt-get update -qq
  fi
  download=$(mktemp -d)
  (cd "$download" && apt-get source --download-only -qq yaml-cpp 2>/dev/null)
  mkdir -p "$yaml_source"
  tar -xJf "$download"/yaml-cpp_*.orig.tar.* -C "$yaml_source" --strip-components=1
  rm -rf "$download"
  echo "install-deps: yaml-cpp's source, from Debian's source package, in $yaml_source"
fi
