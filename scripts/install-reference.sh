#!/usr/bin/env sh
# Installs the reference implementations the parity spec and `npm run bench` compare with:
# benchmark/ (openclaw, pinned in benchmark/package.json and benchmark/package-lock.json, beside
# sharp) and benchmark/ai-sdk-peer/ (@ai-sdk-tool/parser, the AI SDK middleware benchmark/ai-sdk.mjs
# compares with). Each goes to a cache outside the clone ($TH_CACHE, by default
# ~/.cache/transcript-hygiene), one folder per lockfile, and its node_modules (git-ignored) links to
# it: a fresh clone on the same machine (CI) installs nothing (the first openclaw install is
# ~600 MB, minutes on a cold npm cache; the AI SDK peer ~26 MB, seconds).
# Install scripts are skipped: nothing the benchmarks load needs a native build.
set -eu
root="${TH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/transcript-hygiene}"

# install DIR PREFIX: npm ci of DIR's lockfile into $root/PREFIX-<lockfile checksum>, linked as DIR/node_modules.
install() {
  dir="$1"
  want=$(cksum < "$dir/package-lock.json" | cut -d' ' -f1)
  cache="$root/$2-$want"
  if [ ! -f "$cache/.installed" ]; then
    rm -rf "$cache"
    mkdir -p "$cache"
    cp "$dir/package.json" "$dir/package-lock.json" "$cache"/
    (cd "$cache" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
    touch "$cache/.installed"
  fi
  if [ -d "$dir/node_modules" ] && [ ! -L "$dir/node_modules" ]; then rm -rf "$dir/node_modules"; fi
  ln -sfn "$cache/node_modules" "$dir/node_modules"
}

cd "$(dirname "$0")/../benchmark"
install . reference
install ai-sdk-peer ai-sdk-peer
echo "install-reference: openclaw $(node -p "require('./node_modules/openclaw/package.json').version" 2>/dev/null || echo '?'), @ai-sdk-tool/parser $(node -p "require('./ai-sdk-peer/node_modules/@ai-sdk-tool/parser/package.json').version" 2>/dev/null || echo '?') in $root"
