"""Topic names: which are legal, which collide, and the names of internal topics.

Owns: ``validate_topic_name`` (non-empty, not "." or "..", at most 249 characters of
ASCII alphanumerics, '.', '_' and '-'), the '.'/'_' collision rule, the internal topics
(``INTERNAL_TOPICS``; Kafka's ``Topic.isInternal`` is membership of it) and the name of the metadata topic
(``__cluster_metadata``) and its partition directory.  Used by the controller (CreateTopics),
the broker (auto-creation, Metadata's ``is_internal``, the refusal of a client's appends to
an internal topic, its log directories) and the CLI; owned by neither.

Kafka concept: ``org.apache.kafka.common.internals.Topic``.
"""

from __future__ import annotations

import re

from kafkette.protocol.errors import InvalidTopicError

MAX_NAME_LENGTH = 249
CLUSTER_METADATA_TOPIC_NAME = "__cluster_metadata"
METADATA_TOPIC_PARTITION_DIR = f"{CLUSTER_METADATA_TOPIC_NAME}-0"
"""Directory of the metadata log's one partition under the metadata log dir."""
GROUP_METADATA_TOPIC_NAME = "__consumer_offsets"
"""The consumer groups' committed offsets and metadata (Kafka's ``Topic.GROUP_METADATA_TOPIC_NAME``)."""
TRANSACTION_STATE_TOPIC_NAME = "__transaction_state"
"""Kafka's transaction log (``Topic.TRANSACTION_STATE_TOPIC_NAME``).  Kafkette has no transaction
coordinator; the name stays internal, as in Kafka, for a topic a client creates under it."""
SHARE_GROUP_STATE_TOPIC_NAME = "__share_group_state"
"""Kafka's share groups' state (``Topic.SHARE_GROUP_STATE_TOPIC_NAME``, KIP-932); internal as the above."""
INTERNAL_TOPICS = frozenset(
    {GROUP_METADATA_TOPIC_NAME, TRANSACTION_STATE_TOPIC_NAME, SHARE_GROUP_STATE_TOPIC_NAME}
)
"""Kafka's ``Topic.INTERNAL_TOPICS``: Metadata marks them ``is_internal`` (existing or not), a client's
Produce and DeleteRecords to them are INVALID_TOPIC_EXCEPTION.  ``__cluster_metadata`` is not one of
them: it is no topic of the cluster's metadata, and its creation is refused
(``CLUSTER_METADATA_TOPIC_NAME``)."""
_LEGAL_CHARS = re.compile(r"[a-zA-Z0-9._-]+")


def validate_topic_name(name: str) -> None:
    """Check a topic name: non-empty, not "." or "..", <= 249 chars of [a-zA-Z0-9._-].

    Raises:
        InvalidTopicError: (INVALID_TOPIC_EXCEPTION) with Kafka's message (``Topic.validate``),
            e.g. "Topic name is invalid: the empty string is not allowed".
    """
    reason = _invalid_reason(name)
    if reason is not None:
        raise InvalidTopicError(f"Topic name is invalid: {reason}")


def _invalid_reason(name: str) -> str | None:
    """Why ``name`` is no legal topic name, in Kafka's words (``Topic.detectInvalidTopic``), or None."""
    if not name:
        return "the empty string is not allowed"
    if name in (".", ".."):
        return f"'{name}' is not allowed"
    if len(name) > MAX_NAME_LENGTH:
        return f"the length of '{name}' is longer than the max allowed length {MAX_NAME_LENGTH}"
    if not _LEGAL_CHARS.fullmatch(name):
        return f"'{name}' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"
    return None


def has_collision_chars(name: str) -> bool:
    """True when ``name`` contains '.' or '_' (which collide in metric names)."""
    return "." in name or "_" in name


def unify_collision_chars(name: str) -> str:
    """``name`` with '.' replaced by '_' (two topics equal under this collide)."""
    return name.replace(".", "_")
