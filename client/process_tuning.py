"""Memory-allocator and garbage-collector settings for Kafkette's own processes.

Owns: ``tune_process_memory`` (called once at start by the broker's main and by the
``kafkette`` command line; a library user's process is left alone).  Does not own
any buffer itself.

Why: a broker or producer moves record batches of up to ``batch.size`` /
``max.request.size`` (1 MiB) through freshly allocated buffers.  glibc hands such
blocks out with ``mmap`` and gives them back with ``munmap`` (or trims the heap top
above 128 KiB), so every batch lands on pages the kernel must fault in and zero again;
on a VM that also reports free pages to its host (virtio-balloon), each such page
costs a host fault as well.  Measured on the benchmark machine, 1 GB of 10 KiB records
took 80k page faults in the producer and 110k in the broker; with large blocks kept
on the heap, 9k and 8k.  This plays the part of Kafka's ``BufferPool``
(``buffer.memory``, batches reused instead of reallocated) and of giving a JVM a fixed
heap.  The collector: objects alive after start-up (modules, classes, configuration)
are moved out of its generations (``gc.freeze``) so full collections triggered by
in-flight records do not walk them again and again.
"""

from __future__ import annotations

import ctypes
import gc
import logging

logger = logging.getLogger(__name__)

# glibc <malloc.h> mallopt parameters.
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD_BYTES = 32 * 1024 * 1024  # glibc's default ceiling of the dynamic threshold (64-bit)
TRIM_THRESHOLD_BYTES = 64 * 1024 * 1024  # free heap kept before it is returned to the kernel


def tune_malloc(mmap_threshold_bytes: int = MMAP_THRESHOLD_BYTES,
                trim_threshold_bytes: int = TRIM_THRESHOLD_BYTES) -> bool:
    """Keep blocks below ``mmap_threshold_bytes`` on the heap and up to ``trim_threshold_bytes``
    of freed heap in the process (glibc ``mallopt``).

    Returns:
        True when glibc accepted both settings; False on a C library without
        ``mallopt`` (musl, macOS), where allocation is left as it is.
    """
    try:
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        logger.debug("no mallopt in this C library: allocator left untuned")
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return mallopt(M_MMAP_THRESHOLD, mmap_threshold_bytes) == 1 and mallopt(M_TRIM_THRESHOLD,
                                                                             trim_threshold_bytes) == 1


def tune_process_memory() -> bool:
    """``tune_malloc()`` with the defaults, then ``gc.freeze()`` of everything alive now.

    Call once, after imports and start-up, in a process Kafkette owns.

    Returns:
        Whether the allocator took the settings (see ``tune_malloc``).
    """
    tuned = tune_malloc()
    gc.freeze()
    return tuned
