#!/usr/bin/env bash
# Set up (first run only) and serve the bundled demo of real MindSpore 2.10 summaries in the
# foreground: open the printed URL; Ctrl-C stops. Extra arguments go to the server, e.g.
# --port 8081 (see: python app.py --help).
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"
cd "$ROOT"
echo "dash-insight demo: http://127.0.0.1:8080/ (Ctrl-C to stop)"
exec python app.py --demo --workspace "$ROOT/.workspace" "$@"
