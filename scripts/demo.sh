#!/usr/bin/env bash
# Set up (first run only) and show the bundled demo of real MindSpore 2.10 summary files.
# Until the web app lands (issue #4) this inspects every demo job; then it will serve them.
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"
cd "$ROOT"
find dash_insight/demo -type f -name '*summary.*' -printf '%h\n' | sort -u | while read -r job; do
    dash-insight inspect "$job"
    echo
done
