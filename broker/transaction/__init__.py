"""The transaction coordinator: transactional ids, their producer ids and epochs, and the
transactions' states in ``__transaction_state`` (KIP-98, KIP-890)."""
