# Sourced by the other scripts: make sure .venv exists and holds this package with its test
# extras (pip only re-installs when pyproject.toml changed since the last bootstrap).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${DASH_INSIGHT_VENV:-$ROOT/.venv}"
PYTHON_BIN="${PYTHON:-python3}"
if [ ! -x "$VENV/bin/python" ]; then
    echo "creating $VENV"
    "$PYTHON_BIN" -m venv "$VENV"
fi
STAMP="$VENV/.dash-insight-installed"
if [ ! -f "$STAMP" ] || [ "$ROOT/pyproject.toml" -nt "$STAMP" ]; then
    "$VENV/bin/python" -m pip install --quiet --upgrade pip
    "$VENV/bin/python" -m pip install --quiet -e "$ROOT[test,dev]"
    touch "$STAMP"
fi
export PATH="$VENV/bin:$PATH"
