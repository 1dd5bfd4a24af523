"""Memory-allocator and garbage-collector settings for Kafkette's own processes.

Owns: ``tune_process_memory`` (called once at start by the broker's main and by the
``kafkette`` command line; importing the SDK changes nothing, and an application that
wants the same settings calls it itself, as the benchmarks' client processes do).  Does
not own any buffer itself.

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
in-flight records do not walk them again and again, and the youngest generation is
collected every ``GC_GEN0_THRESHOLD`` allocations instead of CPython's 700.  Every
record in flight holds a few tracked objects (its future, its row, the caller's
callback and context) until its batch is answered; with records spread over 1,000
partitions about 7,000 records are in flight at once, and a young collection walks
every live young object, promotes it, and the older collections walk it again.
Measured with keyed records over 1,000 partitions (200,000 records, the SDK's
defaults): at 700 the producer spent 0.36 s of its 2.7 s of CPU collecting (0.07 s
over 100 partitions) and the broker 0.15 s; at 20,000 the producer still spent 0.16 s;
at 100,000 it spends 0.03 s, and the rate over 1,000 partitions went from 79-85% of the
rate over 100 partitions to 96-99%.  A young collection walks at most this many objects:
its longest pause measured there was 13.6 ms in the producer and 10.5 ms in the broker,
inside the 20 ms pause target Kafka's scripts give the JVM's collector for its
processes (``KAFKA_JVM_PERFORMANCE_OPTS``: G1, ``MaxGCPauseMillis=20``).
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
GC_GEN0_THRESHOLD = 100_000  # tracked allocations between young collections (CPython: 700)


def tune_malloc(
    mmap_threshold_bytes: int = MMAP_THRESHOLD_BYTES, trim_threshold_bytes: int = TRIM_THRESHOLD_BYTES
) -> bool:
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
    return (
        mallopt(M_MMAP_THRESHOLD, mmap_threshold_bytes) == 1
        and mallopt(M_TRIM_THRESHOLD, trim_threshold_bytes) == 1
    )


def tune_process_memory() -> bool:
    """``tune_malloc()`` with the defaults, ``gc.freeze()`` of everything alive now, and the
    young generation's threshold raised to ``GC_GEN0_THRESHOLD`` (the older generations keep
    CPython's thresholds).

    Call once, after imports and start-up, in a process Kafkette owns.

    Returns:
        Whether the allocator took the settings (see ``tune_malloc``).
    """
    tuned = tune_malloc()
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(GC_GEN0_THRESHOLD, older, oldest)
    return tuned
