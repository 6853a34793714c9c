#!/usr/bin/env bash
# Set up (first run only: the app's packages alone, at the versions of uv.lock; about a minute)
# and serve the bundled demo of real MindSpore 2.10 summaries in the
# foreground: open the printed URL; Ctrl-C stops. Extra arguments go to the server, e.g.
# --port 8081 (see: python app.py --help).
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"
cd "$ROOT"
# The server prints the URL it listens on once it does (the port of --port, 8080 by default).
echo "dash-insight demo: starting the server"
exec python app.py --demo --workspace "$ROOT/.workspace" "$@"
