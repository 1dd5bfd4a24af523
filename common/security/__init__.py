"""Kafka's security model: authentication (SASL, TLS principals) and authorization."""
