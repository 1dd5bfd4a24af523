"""Kafkette's wire protocol: framing, schemas per API, error codes, record batches.

Pure code, no I/O: the broker and the client both build on it.
"""
