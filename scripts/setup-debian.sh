#!/usr/bin/env bash
# Installs what tapegrad needs to build and test on Debian 12, skipping what is already there.
# Run as root (or with sudo available). The CUDA toolkit is optional and not installed here:
# when /usr/local/cuda exists the GPU backend is compiled too.
set -euo pipefail

packages=(cmake g++ ninja-build ccache libfmt-dev doctest-dev nlohmann-json3-dev libcli11-dev libboost-context-dev zlib1g-dev
          libssl-dev  # OpenSSL's libcrypto: the SHA-256 of a run's data files (train/run_data.h)
          clang-14 libclang-rt-14-dev libomp-14-dev  # clang and its runtimes: the fuzz targets (fuzz/)
          libjs-chart.js  # Chart.js, inlined into report.html at build time (report/page/)
          chromium chromium-driver python3-selenium  # the pages' tests in headless Chromium (report, explore)
          gnuplot-nox  # tapegrad experiment draws its SVG plots with gnuplot
          graphviz katex  # tapegrad explore: Graphviz lays out the tape, KaTeX renders formulas (katex provides node-katex)
          libopenmpi-dev openmpi-bin  # data-parallel training on MPI (dist/) and its tests under mpirun
          emscripten node-dagre-layout  # the live lab (wasm preset): its prebuilt libraries, nothing downloaded; dagre lays out its graph
          python3-torch)  # torch for /usr/bin/python3: the PyTorch round-trip test (tests/pytorch/)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup-debian: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi
