"""The log layer: segments, offset indexes, per-partition logs, the log manager, checkpoints.

Owns everything under ``log.dirs``. Batches are stored byte-for-byte in the format of
``kafkette.protocol.record_batch``; records are never decoded here.  Does not own replication,
high watermark policy or request handling (``broker/``).
"""
