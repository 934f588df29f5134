#!/usr/bin/env sh
# Installs the reference implementations the parity specs and `npm run bench` compare with, one
# lockfile per folder:
#   benchmark/      openclaw 2026.3.23-2 (pinned in benchmark/package.json + package-lock.json), beside sharp;
#   benchmark/oc96/ openclaw 2026.9.6 (its own lockfile; it runs on Node >= 24.16 only).
# They go to a cache outside the clone ($TH_CACHE, by default ~/.cache/transcript-hygiene), one folder
# per lockfile (named by its checksum), and <folder>/node_modules (git-ignored) links to it: a fresh
# clone on the same machine (CI) installs nothing (first installs: ~600 MB and ~1 GB, minutes on a
# cold npm cache).
# Install scripts are skipped: nothing the benchmarks load needs a native build.
set -eu
root="$(cd "$(dirname "$0")/.." && pwd)"
base="${TH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/transcript-hygiene}"
for folder in benchmark benchmark/oc96; do
  cd "$root/$folder"
  want=$(cksum < package-lock.json | cut -d' ' -f1)
  cache="$base/reference-$want"
  if [ ! -f "$cache/.installed" ]; then
    rm -rf "$cache"
    mkdir -p "$cache"
    cp package.json package-lock.json "$cache"/
    (cd "$cache" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
    touch "$cache/.installed"
  fi
  if [ -d node_modules ] && [ ! -L node_modules ]; then rm -rf node_modules; fi
  ln -sfn "$cache/node_modules" node_modules
  echo "install-reference: $folder: openclaw $(node -p "require('./node_modules/openclaw/package.json').version" 2>/dev/null || echo '?') in $cache"
done
# openclaw 2026.9.6 runs on Node >= 24.16: its oracle uses the Node 24 that scripts/runtimes.sh
# installs (cached; prints nothing when it is there).
bash "$root/scripts/runtimes.sh"
