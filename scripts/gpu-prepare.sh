#!/usr/bin/env bash
# Run HERE (a Debian machine where apt works), before sending the tree to a GPU machine that
# has no package registry. Downloads the .deb files of the build's dependencies that such a
# machine lacks into .gpu-debs/ (git-ignored); scripts/gpu-check.sh unpacks them there with
# `dpkg -x` (no install, no root needed). Only headers and CMake package files are used:
# fmt is used header-only there, so no shared library from this distribution is loaded.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(libfmt-dev doctest-dev libcli11-dev nlohmann-json3-dev)
dest=.gpu-debs
rm -rf "$dest"
mkdir -p "$dest"
(cd "$dest" && apt-get download "${packages[@]}" && for f in *_*.deb; do mv "$f" "${f%%_*}.deb"; done)  # plain names: no "~" or "+" to carry
ls -l "$dest"
du -sh "$dest"
echo "gpu-prepare: ${#packages[@]} packages in $dest/; send the tree with carry [\"$dest\"] and run: bash scripts/gpu-check.sh"
