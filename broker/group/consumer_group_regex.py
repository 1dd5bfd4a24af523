"""Regex subscriptions of KIP-848 consumer groups (ConsumerGroupHeartbeat's SubscribedTopicRegex).

Owns: checking a member's new regex (RE2 syntax), the heartbeat's regex step (the old regex's
RegularExpression tombstone when its last user leaves it, whether the epoch must be bumped), when a group's
regexes must be resolved again, resolving them (a full match over every topic name, internal ones
included), and the records a resolution writes (a RegularExpression record per regex still in use, and a
group epoch bump when the resolved topics or the metadata hash changed).  Does not own running the
resolution in the background, locking or writing (``consumer_group_coordinator``), nor applying the
records (``consumer_group_replay``).

Kafka concept: ``GroupMetadataManager.maybeUpdateRegularExpressions`` and
``handleRegularExpressionsResult``, ``UpdateRegularExpressionStatus``, ``TopicRegexResolver``,
``Utils.throwIfRegularExpressionIsInvalid`` (RE2/J there, Google's RE2 here: the syntax is the same, an
error's description text differs), ``REGEX_BATCH_REFRESH_MIN_INTERVAL_MS`` and
``group.consumer.regex.refresh.interval.ms``.
"""

from __future__ import annotations

import enum
import logging
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import re2

from kafkette.broker.group import consumer_group_record_helpers as rh
from kafkette.broker.group.consumer_group import ConsumerGroup
from kafkette.broker.group.consumer_group_errors import ConsumerGroupError
from kafkette.broker.group.consumer_group_member import ConsumerGroupMember
from kafkette.broker.group.consumer_group_metadata_hash import metadata_hash
from kafkette.broker.group.consumer_group_records import (
    ConsumerGroupRegularExpressionKey,
    ConsumerGroupRegularExpressionValue,
)
from kafkette.broker.group.consumer_group_subscriptions import add_topic_counts

logger = logging.getLogger(__name__)

REGEX_BATCH_REFRESH_MIN_INTERVAL_MS = 10_000
"""A group's regexes are resolved at most once per this interval (Kafka's
``REGEX_BATCH_REFRESH_MIN_INTERVAL_MS``)."""

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False


class UpdateRegularExpressionStatus(enum.Enum):
    """Kafka's ``UpdateRegularExpressionStatus``: what a heartbeat did to the member's regex."""

    NO_CHANGE = "NO_CHANGE"
    REGEX_UPDATED = "REGEX_UPDATED"
    REGEX_UPDATED_AND_RESOLVED = "REGEX_UPDATED_AND_RESOLVED"

    @property
    def regex_updated(self) -> bool:
        """Whether the member's regex changed (its subscription changed)."""
        return self is not UpdateRegularExpressionStatus.NO_CHANGE


def compile_regular_expression(regex: str) -> Any:
    """``regex`` compiled with RE2.

    Raises:
        ConsumerGroupError: INVALID_REGULAR_EXPRESSION with Kafka's message, "SubscribedTopicRegex `R` is
            not a valid regular expression: <description>." (the description is RE2's).
    """
    try:
        return re2.compile(regex, _OPTIONS)
    except re2.error as exc:
        detail = exc.args[0] if exc.args else ""
        if isinstance(detail, bytes):
            detail = detail.decode("utf-8", "replace")
        raise ConsumerGroupError(
            "INVALID_REGULAR_EXPRESSION",
            f"SubscribedTopicRegex `{regex}` is not a valid regular expression: {detail}.",
        ) from None


def throw_if_regular_expression_is_invalid(regex: str) -> None:
    """Kafka's ``Utils.throwIfRegularExpressionIsInvalid``.

    Raises:
        ConsumerGroupError: INVALID_REGULAR_EXPRESSION (see ``compile_regular_expression``).
    """
    compile_regular_expression(regex)


@dataclass(frozen=True)
class RegexUpdate:
    """The heartbeat's regex step: its status, and whether the new regex asks for a resolution."""

    status: UpdateRegularExpressionStatus
    require_refresh: bool


def regular_expression_tombstone(group_id: str, regex: str) -> tuple[Any, None]:
    """Kafka's ``newConsumerGroupRegularExpressionTombstone``."""
    return ConsumerGroupRegularExpressionKey(group_id, regex), None


def regular_expression_record(
    group_id: str, regex: str, topics: Iterable[str], version: int, timestamp_ms: int
) -> tuple[Any, Any]:
    """Kafka's ``newConsumerGroupRegularExpressionRecord``: the topics (sorted), the metadata version and
    when (ms) the regex was resolved."""
    return (
        ConsumerGroupRegularExpressionKey(group_id, regex),
        ConsumerGroupRegularExpressionValue(tuple(sorted(topics)), version, timestamp_ms),
    )


def maybe_update_regular_expressions(
    group: ConsumerGroup, member: ConsumerGroupMember, updated: ConsumerGroupMember, records: list[Any]
) -> RegexUpdate:
    """The first half of Kafka's ``maybeUpdateRegularExpressions``: the member's regex changed from
    ``member``'s to ``updated``'s.  The old regex's tombstone is appended to ``records`` when the member
    was its last user; a new regex nobody uses is checked and asks for a resolution; a regex already
    resolved, or a removed one, is ``REGEX_UPDATED_AND_RESOLVED`` (the group epoch is bumped).

    Raises:
        ConsumerGroupError: INVALID_REGULAR_EXPRESSION.
    """
    old = member.subscribed_topic_regex_or_none()
    new = updated.subscribed_topic_regex_or_none()
    if old == new:
        return RegexUpdate(UpdateRegularExpressionStatus.NO_CHANGE, False)
    logger.debug(
        "[GroupId %s] Member %s updated its subscribed regex to: %s.", group.group_id, updated.member_id, new
    )
    status = UpdateRegularExpressionStatus.REGEX_UPDATED
    require_refresh = False
    if old is not None and group.num_subscribed_members(old) == 1:
        records.append(regular_expression_tombstone(group.group_id, old))
    if new is not None:
        if group.num_subscribed_members(new) == 0:
            throw_if_regular_expression_is_invalid(new)
            require_refresh = True
        elif new in group.resolved_regexes:
            status = UpdateRegularExpressionStatus.REGEX_UPDATED_AND_RESOLVED
    elif old is not None:
        status = UpdateRegularExpressionStatus.REGEX_UPDATED_AND_RESOLVED
    return RegexUpdate(status, require_refresh)


def regexes_to_refresh(
    group: ConsumerGroup,
    *,
    require_refresh: bool,
    now_ms: int,
    last_version_with_new_topics: int,
    refresh_interval_ms: int,
) -> frozenset[str]:
    """The second half of Kafka's ``maybeUpdateRegularExpressions``, over the group once the heartbeat's
    records are applied: the regexes to resolve now, empty for none.  A resolution is due when the group
    has regexes, the last one is more than ``REGEX_BATCH_REFRESH_MIN_INTERVAL_MS`` old, and a regex is
    unresolved (or ``require_refresh``), or a topic was created since (``last_version_with_new_topics``
    above the resolutions' version), or the last one is more than ``refresh_interval_ms`` old.  The caller
    checks that no resolution of the group is running.
    """
    subscribed = group.subscribed_regexes
    if not subscribed:
        return frozenset()
    last = group.last_resolved_regex_refresh_time_ms()
    if last is not None and now_ms <= last + REGEX_BATCH_REFRESH_MIN_INTERVAL_MS:
        return frozenset()
    due = (
        require_refresh
        or len(subscribed) != len(group.resolved_regexes)
        or group.last_resolved_regex_version() < last_version_with_new_topics
        or last is None
        or now_ms > last + refresh_interval_ms
    )
    return frozenset(subscribed) if due else frozenset()


def resolve_regular_expressions(
    regexes: Iterable[str],
    topic_names: Iterable[str],
    may_describe: Callable[[str, int], bool] | None = None,
) -> dict[str, frozenset[str]]:
    """Kafka's ``TopicRegexResolver.resolveRegularExpressions``: regex -> the topic names it fully matches
    (``Matcher.matches``), internal topics included.  A regex that no longer compiles matches nothing.

    Args:
        regexes: the group's regexes (RE2 syntax).
        topic_names: every topic the metadata knows.
        may_describe: with an authorizer, ``(topic, how many regexes matched it) -> whether the member
            whose heartbeat asked for the resolution may DESCRIBE it``; the topics it may not are left
            out of every regex's (Kafka's ``filterTopicDescribeAuthorizedTopics``).  None: no filter.
    """
    names = list(topic_names)
    resolved: dict[str, frozenset[str]] = {}
    for regex in regexes:
        try:
            pattern = compile_regular_expression(regex)
        except ConsumerGroupError:
            resolved[regex] = frozenset()
            continue
        resolved[regex] = frozenset(name for name in names if pattern.fullmatch(name))
    if may_describe is None:
        return resolved
    matched = Counter(name for topics in resolved.values() for name in topics)
    denied = {name for name, count in matched.items() if not may_describe(name, count)}
    return {regex: topics - denied for regex, topics in resolved.items()} if denied else resolved


def regular_expressions_result_records(
    group: ConsumerGroup,
    resolved: Mapping[str, frozenset[str]],
    version: int,
    now_ms: int,
    topics: Any,
) -> tuple[list[Any], int | None]:
    """Kafka's ``handleRegularExpressionsResult``: a RegularExpression record per regex the group still
    uses, then a group epoch record (+1, the new metadata hash) when a regex's topics or the hash changed.

    Args:
        group: the group as it is now.
        resolved: regex -> the topic names it matched.
        version: the metadata version the resolution read (ms: when it started).
        now_ms: the resolution's timestamp.
        topics: the cluster's topics (``consumer_group_step.TopicMetadata``) for the hash.

    Returns:
        ``(records, new group epoch or None when not bumped)``.
    """
    gid = group.group_id
    names = dict(group.subscribed_topic_names())
    records: list[Any] = []
    bump = False
    for regex, topics_now in resolved.items():
        if group.num_subscribed_members(regex) == 0:
            continue
        old = group.resolved_regexes.get(regex)
        old_topics = old.topics if old is not None else frozenset()
        if old_topics != topics_now:
            bump = True
            add_topic_counts(names, old_topics, 0, -1)
            add_topic_counts(names, topics_now, 0, 1)
        records.append(regular_expression_record(gid, regex, topics_now, version, now_ms))
    new_hash = metadata_hash(names, topics)
    if new_hash != group.metadata_hash:
        bump = True
    if not bump:
        return records, None
    epoch = group.group_epoch + 1
    records.append(rh.group_epoch_record(gid, epoch, new_hash))
    logger.info("[GroupId %s] Bumped group epoch to %d with metadata hash %d.", gid, epoch, new_hash)
    return records, epoch


def fenced_members_regex_tombstones(
    group: ConsumerGroup, members: Iterable[ConsumerGroupMember]
) -> list[Any]:
    """The RegularExpression tombstones of the regexes that only ``members`` (being fenced) use, as
    Kafka's ``consumerGroupFenceMembers``."""
    leaving: dict[str, int] = {}
    for member in members:
        regex = member.subscribed_topic_regex_or_none()
        if regex is not None:
            leaving[regex] = leaving.get(regex, 0) + 1
    return [
        regular_expression_tombstone(group.group_id, regex)
        for regex, count in leaving.items()
        if group.num_subscribed_members(regex) == count
    ]
