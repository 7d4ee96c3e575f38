#!/usr/bin/env bash
# Installs Bun if missing (through npm), installs dependencies from the lockfile and builds
# dist/herald. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")"

if ! command -v bun >/dev/null 2>&1; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "install.sh: Bun is missing and npm is not available to install it (install Node.js + npm first)" >&2
    exit 1
  fi
  echo "Installing Bun with npm..."
  npm install -g bun@1.4.5
  hash -r
fi
echo "Bun $(bun --version)"

bun install --frozen-lockfile
bun run build
echo
echo "Done. Start Herald with:  ./dist/herald serve"
