"""A load worker process: ``python -m dash_insight.core.store.load_worker module:function``.

Reads pickled tasks from stdin until EOF, runs the function on each and writes
``(True, result)`` or ``(False, exception)`` pickled to stdout (see
:class:`~dash_insight.core.store.load_pool.LoadPool`). Anything the function prints goes to
stderr: stdout carries the answers only.
"""

from __future__ import annotations

import os
import pickle
import sys


def main(argv: list[str]) -> int:
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray prints must not corrupt answers
    tasks = sys.stdin.buffer
    from dash_insight.core.memory import return_large_buffers
    from dash_insight.core.store.load_pool import resolve

    # A slice's columns and pickles are buffers of MB, freed after each task: given back to
    # the system at once, not kept in malloc's heap between tasks (see core.memory).
    return_large_buffers()

    function = resolve(argv[0])
    while True:
        try:
            task = pickle.load(tasks)
        except EOFError:
            return 0
        try:
            result = function(task)
        except Exception as error:  # reported to the loader, which records it for the file
            try:
                data = pickle.dumps((False, error), protocol=pickle.HIGHEST_PROTOCOL)
            except Exception:  # an exception that cannot be pickled
                data = pickle.dumps((False, RuntimeError(repr(error))))
            answers.write(data)
        else:
            # Streamed: a slice's columns are not copied into one more bytes object.
            pickle.dump((True, result), answers, protocol=pickle.HIGHEST_PROTOCOL)
        answers.flush()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
