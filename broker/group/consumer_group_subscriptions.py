"""How a consumer group's members subscribe (KIP-848): the counts the group keeps per topic and per regex.

Owns: ``SubscriptionCount`` (members subscribing to a topic by name, resolved regexes matching it),
``ResolvedRegularExpression`` (a RegularExpression record's content), the count updates, and the
subscription type rule.  Does not own resolving regexes (the coordinator) nor the group
(``consumer_group.ConsumerGroup``).

Kafka concept: ``modern/SubscriptionCount``, ``modern/consumer/ResolvedRegularExpression``,
``ConsumerGroup.subscriptionType``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from kafkette.broker.group.assignors.api import SubscriptionType


@dataclass(frozen=True)
class SubscriptionCount:
    """How many members subscribe to a topic by name, and how many resolved regexes match it."""

    by_name_count: int = 0
    by_regex_count: int = 0


@dataclass(frozen=True)
class ResolvedRegularExpression:
    """A regex's resolution (a RegularExpression record): the topic names, the metadata version it was
    resolved against and when (ms)."""

    topics: frozenset[str]
    version: int
    timestamp_ms: int


def dec_count(counts: dict[str, int], key: str) -> None:
    """Decrement ``counts[key]``, dropping the key at zero (Kafka's ``Utils.decValue``)."""
    value = counts.get(key, 0) - 1
    if value <= 0:
        counts.pop(key, None)
    else:
        counts[key] = value


def add_topic_counts(
    counts: dict[str, SubscriptionCount], names: Iterable[str], name: int, regex: int
) -> None:
    """Add ``name`` to the by-name and ``regex`` to the by-regex count of each topic of ``names`` (either
    may be -1), dropping a topic whose counts reach zero (``SubscriptionCount.inc/dec*Count``)."""
    for topic in names:
        old = counts.get(topic, SubscriptionCount())
        new = SubscriptionCount(old.by_name_count + name, old.by_regex_count + regex)
        if new.by_name_count <= 0 and new.by_regex_count <= 0:
            counts.pop(topic, None)
        else:
            counts[topic] = new


def subscription_type_of(
    subscribed_regexes: Mapping[str, int], subscribed_names: Mapping[str, SubscriptionCount], num_members: int
) -> SubscriptionType:
    """HOMOGENEOUS iff every topic is subscribed by name by all members and no member uses a regex, or all
    members use one same regex and no names; else HETEROGENEOUS (``ConsumerGroup.subscriptionType``)."""
    if not subscribed_regexes:
        if all(count.by_name_count == num_members for count in subscribed_names.values()):
            return SubscriptionType.HOMOGENEOUS
        return SubscriptionType.HETEROGENEOUS
    if next(iter(subscribed_regexes.values())) != num_members:
        return SubscriptionType.HETEROGENEOUS
    for count in subscribed_names.values():
        if count.by_regex_count != 1 or count.by_name_count > 0:
            return SubscriptionType.HETEROGENEOUS
    return SubscriptionType.HOMOGENEOUS
