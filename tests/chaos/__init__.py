"""The chaos harness: one workload, many faults, one checker (``make chaos``)."""
