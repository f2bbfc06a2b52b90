#!/usr/bin/env bash
# CI: rebuild the playground from a clean install of the locked packages and fail when the
# committed build (codeact/playground/static) differs, or when the lock names a registry URL.
#   playground/check-build.sh          check
#   playground/check-build.sh --write  rebuild into codeact/playground/static (then commit it)
set -euo pipefail
cd "$(dirname "$0")"
if grep -Eq '"resolved"|registry\.npmjs|registry\.yarnpkg|npmmirror' package-lock.json; then
  echo "playground/package-lock.json records download URLs: regenerate it (see .npmrc)" >&2
  exit 1
fi
echo "==> playground: npm ci"
npm ci --no-audit --no-fund --loglevel=error
npx tsc --noEmit
if [ "${1:-}" = "--write" ]; then
  npx vite build --logLevel warn
  exit 0
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
npx vite build --logLevel warn --outDir "$out" --emptyOutDir
if ! diff -r "$out" ../codeact/playground/static; then
  echo "the committed playground build is stale: run playground/check-build.sh --write and commit" >&2
  exit 1
fi
echo "==> playground build is up to date"
