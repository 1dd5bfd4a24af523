"""Runnable demos of Kafkette on real data (``make demo``)."""
