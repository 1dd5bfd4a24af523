"""Kafkette's wire protocol: framing, schemas per API, error codes, record batches.

Pure code, no I/O: no asyncio, sockets or files (the network layer that moves these bytes
is ``kafkette.common.network``). Everything else builds on it.
"""
