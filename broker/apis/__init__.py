"""Request handlers, one module per API, and the ``KafkaApis`` dispatcher over them."""
