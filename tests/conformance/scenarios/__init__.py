"""Scenario modules of the conformance catalogue, one per area (each registers on import)."""
