# Sourced by the other scripts: make sure .venv exists and holds this package with its test
# extras (pip only re-installs when pyproject.toml changed since the last bootstrap). The first
# run takes minutes: it says what it is doing, step by step.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${DASH_INSIGHT_VENV:-$ROOT/.venv}"
PYTHON_BIN="${PYTHON:-python3}"
if [ ! -x "$VENV/bin/python" ]; then
    echo "setup: creating the virtual environment $VENV (first run only)"
    "$PYTHON_BIN" -m venv "$VENV"
fi
STAMP="$VENV/.dash-insight-installed"
if [ ! -f "$STAMP" ] || [ "$ROOT/pyproject.toml" -nt "$STAMP" ]; then
    echo "setup: upgrading pip in $VENV"
    "$VENV/bin/python" -m pip install --quiet --upgrade pip
    echo "setup: installing dash-insight and its packages into $VENV (Dash, Plotly, NumPy," \
         "test tools; a few minutes on the first run)"
    "$VENV/bin/python" -m pip install --quiet -e "$ROOT[test,dev]"
    touch "$STAMP"
    echo "setup: done"
fi
export PATH="$VENV/bin:$PATH"
