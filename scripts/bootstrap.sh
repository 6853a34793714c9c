# Sourced by the other scripts: make sure the virtual environment holds this package and the exact
# versions of uv.lock (https://docs.astral.sh/uv/), installed with uv. What goes in:
#   DASH_INSIGHT_EXTRAS   extras of pyproject.toml to add ("test" for scripts/test.sh); the demo
#                         installs the app alone (about 400 MB instead of 1 GB).
#   DASH_INSIGHT_DEPS     "locked" (the default) or "newest": every package at its newest release
#                         allowed by pyproject.toml, ignoring the lock, in .venv-newest (the
#                         scheduled check .ci/newest; scripts/lock.sh then refreshes the lock).
#   DASH_INSIGHT_VENV     the environment (default .venv, or .venv-newest for "newest").
# A run with nothing to install is silent and takes a fraction of a second; the first run says
# what it installs.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
UV_VERSION=0.13.9
DEPS="${DASH_INSIGHT_DEPS:-locked}"
case "$DEPS" in
    locked) VENV="${DASH_INSIGHT_VENV:-$ROOT/.venv}" ;;
    newest) VENV="${DASH_INSIGHT_VENV:-$ROOT/.venv-newest}" ;;
    *) echo "setup: DASH_INSIGHT_DEPS is '$DEPS'; use locked or newest" >&2; exit 2 ;;
esac
read -r -a EXTRA_NAMES <<< "${DASH_INSIGHT_EXTRAS:-}"
EXTRAS=()
for extra in "${EXTRA_NAMES[@]}"; do EXTRAS+=(--extra "$extra"); done
# uv: $UV if set, else the pinned release installed once into .tools (a 20 MB wheel from PyPI).
if [ -z "${UV:-}" ]; then
    UV="$ROOT/.tools/uv-$UV_VERSION/bin/uv"
    if [ ! -x "$UV" ]; then
        echo "setup: installing uv $UV_VERSION, the package installer, into .tools (first run only)"
        "${PYTHON:-python3}" -m pip install --quiet --disable-pip-version-check \
            --target "$ROOT/.tools/uv-$UV_VERSION" "uv==$UV_VERSION"
    fi
fi
export UV UV_PROJECT_ENVIRONMENT="$VENV" UV_PYTHON="${PYTHON:-python3}" UV_PYTHON_DOWNLOADS=never
cd "$ROOT"
if [ "$DEPS" = locked ]; then
    # The demo adds the app's packages to whatever is there; the tests get exactly the lock.
    SYNC=(sync --frozen "${EXTRAS[@]}")
    [ ${#EXTRAS[@]} -gt 0 ] || SYNC+=(--inexact)
    if ! "$UV" "${SYNC[@]}" --check --quiet >/dev/null 2>&1; then
        echo "setup: installing dash-insight and the versions of uv.lock into $VENV" \
             "(Dash, Plotly, NumPy, pandas${EXTRA_NAMES[*]:+; extras: ${EXTRA_NAMES[*]}})"
        "$UV" "${SYNC[@]}"
        echo "setup: done"
    fi
else
    echo "setup: installing dash-insight with the newest releases of its packages into $VENV" \
         "(not the lock)"
    [ -x "$VENV/bin/python" ] || "$UV" venv --quiet "$VENV"
    SPEC="$ROOT"
    [ ${#EXTRA_NAMES[@]} -eq 0 ] || SPEC="$ROOT[$(IFS=,; echo "${EXTRA_NAMES[*]}")]"
    "$UV" pip install --python "$VENV/bin/python" --upgrade -e "$SPEC"
    echo "setup: done; what differs from uv.lock:"
    "$UV" pip list --python "$VENV/bin/python" --format freeze \
        | "$VENV/bin/python" "$ROOT/scripts/lock_diff.py" "$ROOT/uv.lock" || true
fi
export PATH="$VENV/bin:$PATH"
