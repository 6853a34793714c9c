#!/usr/bin/env bash
# Set up (first run only: the lock's versions with the test extra, scripts/bootstrap.sh) and run
# the whole test suite: ruff, the import-linter contracts of pyproject.toml, mypy on the package,
# the documentation site (mkdocs.yml, built --strict into site/), then pytest (browser tests drive
# headless Chromium, installed from Debian's packages when missing; tests/test_wheel.py builds the
# sdist and wheel, installs the wheel into the scratch venv .venv-wheel and serves the demo from
# it; the notebook test runs a notebook in an IPython kernel; the fleet tests, marked fleet, start
# a redis-server from Debian's package and Celery workers). Extra arguments go to pytest.
# DASH_INSIGHT_DEPS=newest runs it all on the newest releases instead of the lock (.ci/newest).
DASH_INSIGHT_EXTRAS="test dev ${DASH_INSIGHT_EXTRAS:-}"
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"
cd "$ROOT"
if ! command -v chromedriver >/dev/null || ! command -v chromium >/dev/null \
        || ! command -v redis-server >/dev/null; then
    echo "setup: installing chromium and chromium-driver (browser tests) and redis-server" \
         "(fleet tests) with apt (first run only, about a minute)"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver \
        redis-server >/dev/null
fi
# The Chinese pages (and CJK tags, job folders, remarks) need a CJK font, or headless Chromium
# draws empty boxes.
if command -v fc-list >/dev/null && [ -z "$(fc-list :lang=zh family)" ]; then
    echo "installing fonts-noto-cjk (apt)"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq fonts-noto-cjk >/dev/null \
        || { $SUDO apt-get update -qq \
             && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq fonts-noto-cjk >/dev/null; }
fi
echo "checks: uv.lock matches pyproject.toml, ruff (lint and format), lint-imports, mypy, the docs" \
     "site (mkdocs build --strict), then pytest"
[ "$DEPS" = newest ] || "$UV" lock --check --quiet \
    || { echo "uv.lock does not match pyproject.toml: run ./scripts/lock.sh" >&2; exit 1; }
ruff check dash_insight tests bench proto scripts app.py
ruff format --check dash_insight tests bench proto scripts app.py
lint-imports --no-cache
mypy
# ESLint (scripts/eslint: the lock's eslint, installed into scripts/eslint/node_modules once) on
# assets/, the vendored plotly.js bundle excepted.
if command -v npm >/dev/null; then
    ESLINT_DIR="$ROOT/scripts/eslint"
    [ "$ESLINT_DIR/node_modules/.package-lock.json" -nt "$ESLINT_DIR/package-lock.json" ] \
        || npm ci --prefix "$ESLINT_DIR" --no-audit --no-fund --loglevel=error >/dev/null
    npm run --prefix "$ESLINT_DIR" --silent lint
else
    echo "eslint: skipped (node and npm are not installed)"
fi
# (not --quiet: it hides the warnings that --strict counts, and the build passes)
NO_MKDOCS_2_WARNING=1 mkdocs build --strict --site-dir "$ROOT/site" 2>&1 | { grep -v '^INFO' || true; }
python -m pytest -n "${TEST_WORKERS:-2}" --dist loadfile --durations=40 "$@"
