"""How the Raft layer turns the state machine's records into bytes and back (Kafka's ``RecordSerde``).

Owns: the ``RecordSerde`` protocol.  The Raft layer (``controller/raft``) replicates entries
without knowing what a record is; whoever runs it (the controller, with its metadata
records) hands it a serde, as Kafka's ``KafkaRaftClient`` is given a
``RecordSerde<ApiMessageAndVersion>`` (``MetadataRecordSerde``).  Does not own the control
entries the Raft layer writes itself (``LeaderChange``): those are ``raft_wire``'s.
"""

from __future__ import annotations

from typing import Any, Protocol


class RecordSerde(Protocol):
    """Encodes one state-machine record as bytes and decodes it again.

    ``write(record) -> bytes``: raises ``TypeError`` for an object that is not a record.
    ``read(data) -> record``: raises ``ValueError`` for bytes that are not one.
    """

    def write(self, record: Any) -> bytes: ...

    def read(self, data: bytes) -> Any: ...
