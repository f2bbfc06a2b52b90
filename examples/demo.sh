#!/usr/bin/env bash
# The README's main job: answer a question about a bundled CSV with the embedded local model.
set -euo pipefail
cd "$(dirname "$0")/.."
exec .venv/bin/codeact run "Which city sold the most units, and how many units did it sell?" \
  --file examples/data/sales.csv "$@"
