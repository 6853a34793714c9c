"""Give the memory of freed large buffers back to the system at once (glibc's malloc).

glibc serves an allocation above its mmap threshold (128 KB at start) with its own ``mmap``, given
back when freed; but freeing such a buffer raises the threshold to its size (up to 32 MB), so
later buffers of that size come from the heap of the thread's arena and stay in the process when
freed. A server whose 8 request threads each read chunks of several MB (step-window reads of
long series, :mod:`.store.chunks`) kept ~10-20 MB per thread that way: 8 threads reading 5 MB
chunks ended at 160 MB of RSS, 75 MB with the threshold fixed at 1 MB (setting it stops the
raising). Nothing is done on another C library.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import platform

log = logging.getLogger(__name__)

#: ``mallopt`` parameter number of ``M_MMAP_THRESHOLD`` (glibc's malloc.h).
_M_MMAP_THRESHOLD = -3
#: Buffers from this size on are mapped on their own and unmapped when freed.
MMAP_THRESHOLD_BYTES = 1 << 20


def return_large_buffers() -> bool:
    """Fix glibc's mmap threshold at :data:`MMAP_THRESHOLD_BYTES` for this process (call it
    once at start, before the request threads); False when the C library is not glibc or
    refused."""
    if platform.libc_ver()[0] != "glibc":
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        done = bool(libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES))
    except (OSError, AttributeError) as error:
        log.info("could not set malloc's mmap threshold: %s", error)
        return False
    return done
