#!/usr/bin/env sh
# Installs the reference implementations the parity spec and `npm run bench` compare with
# (openclaw, pinned in benchmark/package.json and benchmark/package-lock.json, beside sharp) into
# benchmark/node_modules, which git ignores. A second run with the same lockfile does nothing, so
# CI keeps the folder between runs and pays the download once (~600 MB, minutes on a cold npm cache).
# Install scripts are skipped: nothing the benchmarks load needs a native build.
set -eu
cd "$(dirname "$0")/../benchmark"
stamp=node_modules/.reference-lock
want=$(cksum < package-lock.json)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "install-reference: benchmark/node_modules is up to date"
  exit 0
fi
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
printf '%s' "$want" > "$stamp"
echo "install-reference: installed $(node -p "require('./node_modules/openclaw/package.json').version" 2>/dev/null || echo '?') in benchmark/node_modules"
