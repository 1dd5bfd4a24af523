"""The metadata records as the Raft layer stores and replicates them (Kafka's ``MetadataRecordSerde``).

Owns: ``MetadataRecordSerde`` (a ``RecordSerde``: a ``MetadataRecord`` <-> msgpack bytes of
``[record_type, fields]``) and its one instance ``METADATA_RECORD_SERDE``, handed to the
``RaftManager`` by the ``QuorumController``.  Does not own the records themselves
(``metadata_records``) nor the Raft layer's own control entries.
"""

from __future__ import annotations

import msgpack

from kafkette.controller.metadata_records import MetadataRecord, record_from_wire


class MetadataRecordSerde:
    """A ``RecordSerde`` of ``MetadataRecord`` (Kafka's ``MetadataRecordSerde``)."""

    def write(self, record: MetadataRecord) -> bytes:
        """The record as msgpack bytes of ``[record_type, fields]``.

        Raises:
            TypeError: ``record`` is not a ``MetadataRecord``.
        """
        if not isinstance(record, MetadataRecord):
            raise TypeError(f"not a metadata log payload: {type(record).__name__}")
        return msgpack.packb(record.to_wire(), use_bin_type=True)

    def read(self, data: bytes) -> MetadataRecord:
        """The inverse of ``write``.

        Raises:
            ValueError: bytes that are no metadata record.
        """
        try:
            obj = msgpack.unpackb(data, raw=False)
        except (msgpack.UnpackException, ValueError) as exc:
            raise ValueError(f"undecodable metadata log payload: {exc}") from None
        return record_from_wire(obj)


METADATA_RECORD_SERDE = MetadataRecordSerde()
