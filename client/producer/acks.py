"""Acks: how many replicas must have a record before the leader answers the producer.

Owns: the ``Acks`` enum (the values of a produce request's ``acks`` field) and the reading of
the spellings a user gives for it (``"all"``, ``-1``, ``0``, ``1``, as ints or strings).  Does
not own what the broker does with each value (``broker/apis/produce.py``) nor the command-line
flag (``kafkette.client.cli.shared_options.acks_option``).

Kafka concept: the producer config ``acks`` (``ProducerConfig.ACKS_CONFIG``), whose default is
``all`` since Kafka 3.0 (KIP-679).
"""

from __future__ import annotations

from enum import IntEnum


class Acks(IntEnum):
    """The producer's ``acks``, with the wire values of the produce request."""

    ALL = -1  # the leader answers once every in-sync replica has the records
    NONE = 0  # no answer at all; the producer learns no offset (-1)
    LEADER = 1  # the leader answers once its own log has the records

    @classmethod
    def parse(cls, value: int | str) -> Acks:
        """Read ``acks`` as Kafka's producer config takes it.

        Args:
            value: ``"all"``, ``-1``, ``0`` or ``1`` (an int, or its string).

        Returns:
            The ``Acks`` member.

        Raises:
            ValueError: any other value (a bool too).
        """
        if not isinstance(value, bool):
            if isinstance(value, str) and value.strip().lower() == "all":
                return cls.ALL
            try:
                return cls(int(value))
            except ValueError:
                pass
        raise ValueError(f"acks must be one of 'all', -1, 0, 1; got {value!r}")


DEFAULT_ACKS = "all"  # Kafka's producer default since 3.0, also of kafka-producer-perf-test
ACKS_CHOICES = ("all", "-1", "0", "1")  # the spellings Kafka's tools take
