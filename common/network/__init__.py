"""The network layer (Kafka's ``org.apache.kafka.common.network`` and ``kafka.network``).

Owns the bytes in motion: ``socket_server`` (Kafka's ``SocketServer``: acceptors,
processors, the request channel), ``frame_stream`` (length-prefixed frames over an asyncio
stream), ``memory_pool`` (Kafka's ``MemoryPool``, ``queued.max.request.bytes``) and
``connection`` (one client connection with in-flight requests, Kafka's ``KafkaChannel``
seen from the client's ``NetworkClient``).

Does not own: what the frames mean (``kafkette.protocol``: framing, schemas, codecs).
"""
