#!/usr/bin/env bash
# Set up (first run only) and run the whole test suite; extra arguments go to pytest.
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"
cd "$ROOT"
ruff check dash_insight tests bench proto app.py
python -m pytest "$@"
