"""Replica fetchers: followers pulling record batches from partition leaders."""
