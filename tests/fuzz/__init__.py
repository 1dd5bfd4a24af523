"""Fuzzing of every decoder with Hypothesis (``make fuzz`` for the long run)."""
