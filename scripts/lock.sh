#!/usr/bin/env bash
# Refreshes uv.lock to the newest releases pyproject.toml allows, then runs the whole test suite
# on them. Commit uv.lock only when it passes (CONTRIBUTING.md, "Refreshing the lock").
#   ./scripts/lock.sh                     every package
#   ./scripts/lock.sh --upgrade-package babel   one package (uv lock's own options)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DASH_INSIGHT_EXTRAS=test
source "$ROOT/scripts/bootstrap.sh"
if [ $# -eq 0 ]; then set -- --upgrade; fi
echo "lock: uv lock $*"
"$UV" lock "$@"
git -C "$ROOT" --no-pager diff --stat -- uv.lock
exec "$ROOT/scripts/test.sh"
