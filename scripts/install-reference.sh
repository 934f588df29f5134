#!/usr/bin/env sh
# Installs the reference implementations the parity specs and `npm run bench` compare with, one
# lockfile per folder:
#   benchmark/             openclaw 2026.3.23-2 (pinned in package.json + package-lock.json), beside sharp;
#   benchmark/oc96/        openclaw 2026.9.6 (its own lockfile; it runs on Node >= 24.16 only);
#   benchmark/oc96-plugins/ the official external provider plugins published on npm whose replay
#                          policy 2026.9.6 users get (Mistral, DeepSeek; Qwen, which has none,
#                          for the oracle to show it), with 2026.9.6 linked
#                          beside them as their peer `openclaw`;
#   benchmark/ai-sdk-peer/ @ai-sdk-tool/parser, the AI SDK middleware benchmark/ai-sdk.mjs compares with.
# Each goes to a cache outside the clone ($TH_CACHE, by default ~/.cache/transcript-hygiene), one
# folder per lockfile (named by its checksum), and <folder>/node_modules (git-ignored) links to it:
# a fresh clone on the same machine (CI) installs nothing (first installs: ~600 MB, ~650 MB and
# ~26 MB, minutes on a cold npm cache).
# Install scripts are skipped: nothing the benchmarks load needs a native build.
set -eu
root="$(cd "$(dirname "$0")/.." && pwd)"
base="${TH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/transcript-hygiene}"

# install FOLDER PREFIX: npm ci of FOLDER's lockfile into $base/PREFIX-<checksum>, linked as FOLDER/node_modules.
install() {
  cd "$root/$1"
  want=$(cksum < package-lock.json | cut -d' ' -f1)
  cache="$base/$2-$want"
  if [ ! -f "$cache/.installed" ]; then
    rm -rf "$cache"
    mkdir -p "$cache"
    cp package.json package-lock.json "$cache"/
    (cd "$cache" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
    touch "$cache/.installed"
  fi
  if [ -d node_modules ] && [ ! -L node_modules ]; then rm -rf node_modules; fi
  ln -sfn "$cache/node_modules" node_modules
  echo "install-reference: $1: $3 $(node -p "require('./node_modules/$3/package.json').version" 2>/dev/null || echo '?') in $cache"
}

install benchmark reference openclaw
install benchmark/oc96 reference openclaw
install benchmark/oc96-plugins reference @openclaw/mistral-provider
# The plugins import `openclaw/plugin-sdk/*` (an optional peer, not installed with them): the
# 2026.9.6 just installed, by its real path (the link lives in the shared cache folder).
ln -sfn "$(cd "$root/benchmark/oc96/node_modules/openclaw" && pwd -P)" "$root/benchmark/oc96-plugins/node_modules/openclaw"
install benchmark/ai-sdk-peer ai-sdk-peer @ai-sdk-tool/parser
# openclaw 2026.9.6 runs on Node >= 24.16: its oracle uses the Node 24 that scripts/runtimes.sh
# installs (cached; prints nothing when it is there).
bash "$root/scripts/runtimes.sh"
