#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Python module's check, as a user runs it: in a fresh virtual environment, `pip install .`
# then `pytest`. Given a prism build tree, the module is built over it (the library is not
# compiled again); without one, pip builds the library too.
#   python/test.sh [PRISM_BUILD_DIR] [pytest arguments]
# PYTHON: the interpreter (python3); PRISM_VENV: where the environment goes (build/python-venv).
set -euo pipefail
cd "$(dirname "$0")/.."
prism=()
if [ $# -gt 0 ] && [ -d "$1" ]; then
  prism=(--config-settings=cmake.define.prism_DIR="$(cd "$1" && pwd)")
  shift
fi
python=${PYTHON:-python3}
venv=${PRISM_VENV:-build/python-venv}
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install -q pytest numpy
"$venv/bin/python" -m pip install -q . ${prism[@]+"${prism[@]}"}
"$venv/bin/python" -m pytest -q "$@"
"$venv/bin/python" examples/07_python/main.py
