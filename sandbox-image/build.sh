#!/usr/bin/env bash
# Build the default sandbox image offline (see codeact/executors/docker/image.py).
set -euo pipefail
cd "$(dirname "$0")/.."
exec "${PYTHON:-.venv/bin/python}" -m codeact.executors.docker.image "$@"
