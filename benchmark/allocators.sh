#!/usr/bin/env bash
# Builds the addon once per global-allocator choice (release profile, as published) into
# benchmark/allocators/<name>.node, for benchmark/allocators.mjs. Takes a few minutes per build.
#   bash benchmark/allocators.sh [name ...]     (default: all of them)
set -euo pipefail
cd "$(dirname "$0")/.."
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(system mimalloc-v2 mimalloc-v2-dyntls mimalloc-v3 mimalloc-v3-dyntls)
mkdir -p benchmark/allocators
for name in "${names[@]}"; do
  features=()
  [ "$name" = system ] || features=(--features "$name")
  echo "building $name" >&2
  cargo build --release --lib "${features[@]}" --target-dir "target/allocators/$name" >&2
  cp "target/allocators/$name/release/libtranscript_hygiene.so" "benchmark/allocators/$name.node"
done
