"""Server-side partition assignors of consumer groups (KIP-848): Kafka's ``uniform`` and ``range``."""
