"""Topic names: which are legal, which collide, and the names of internal topics.

Owns: ``validate_topic_name`` (non-empty, not "." or "..", at most 249 characters of
ASCII alphanumerics, '.', '_' and '-'), the '.'/'_' collision rule and the name of the
metadata topic (``__cluster_metadata``) and its partition directory.  Used by the
controller (CreateTopics), the broker (auto-creation, its log directories) and the CLI;
owned by neither.

Kafka concept: ``org.apache.kafka.common.internals.Topic`` (seeds 000 and 002).
"""

from __future__ import annotations

import re

from kafkette.protocol.errors import InvalidTopicError  # type: ignore[attr-defined]

MAX_NAME_LENGTH = 249
CLUSTER_METADATA_TOPIC_NAME = "__cluster_metadata"
METADATA_TOPIC_PARTITION_DIR = f"{CLUSTER_METADATA_TOPIC_NAME}-0"
"""Directory of the metadata log's one partition under the metadata log dir."""
GROUP_METADATA_TOPIC_NAME = "__consumer_offsets"
"""The consumer groups' committed offsets and metadata (Kafka's ``Topic.GROUP_METADATA_TOPIC_NAME``)."""
INTERNAL_TOPICS = frozenset({GROUP_METADATA_TOPIC_NAME})
"""Topics Metadata marks ``is_internal`` (Kafka's ``Topic.INTERNAL_TOPICS``, without transactions)."""
_LEGAL_CHARS = re.compile(r"[a-zA-Z0-9._-]+")


def validate_topic_name(name: str) -> None:
    """Check a topic name: non-empty, not "." or "..", <= 249 chars of [a-zA-Z0-9._-].

    Raises:
        InvalidTopicError: (INVALID_TOPIC_EXCEPTION) with Kafka's message.
    """
    if not name:
        raise InvalidTopicError("Topic name is illegal, it can't be empty")
    if name in (".", ".."):
        raise InvalidTopicError('Topic name cannot be "." or ".."')
    if len(name) > MAX_NAME_LENGTH:
        raise InvalidTopicError(
            f"Topic name is illegal, it can't be longer than {MAX_NAME_LENGTH} characters, topic name: {name}"
        )
    if not _LEGAL_CHARS.fullmatch(name):
        raise InvalidTopicError(
            f'Topic name "{name}" is illegal, it contains a character other than '
            "ASCII alphanumerics, '.', '_' and '-'"
        )


def has_collision_chars(name: str) -> bool:
    """True when ``name`` contains '.' or '_' (which collide in metric names)."""
    return "." in name or "_" in name


def unify_collision_chars(name: str) -> str:
    """``name`` with '.' replaced by '_' (two topics equal under this collide)."""
    return name.replace(".", "_")
