#!/usr/bin/env sh
# Installs the reference implementations the parity spec and `npm run bench` compare with
# (openclaw, pinned in benchmark/package.json and benchmark/package-lock.json, beside sharp). They
# go to a cache outside the clone ($TH_CACHE, by default ~/.cache/transcript-hygiene), one folder per
# lockfile, and benchmark/node_modules (git-ignored) links to it: a fresh clone on the same machine
# (CI) installs nothing (the first install is ~600 MB, minutes on a cold npm cache).
# Install scripts are skipped: nothing the benchmarks load needs a native build.
set -eu
cd "$(dirname "$0")/../benchmark"
want=$(cksum < package-lock.json | cut -d' ' -f1)
cache="${TH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/transcript-hygiene}/reference-$want"
if [ ! -f "$cache/.installed" ]; then
  rm -rf "$cache"
  mkdir -p "$cache"
  cp package.json package-lock.json "$cache"/
  (cd "$cache" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  touch "$cache/.installed"
fi
if [ -d node_modules ] && [ ! -L node_modules ]; then rm -rf node_modules; fi
ln -sfn "$cache/node_modules" node_modules
echo "install-reference: openclaw $(node -p "require('./node_modules/openclaw/package.json').version" 2>/dev/null || echo '?') in $cache"
