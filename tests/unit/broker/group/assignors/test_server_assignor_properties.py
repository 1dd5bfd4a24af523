"""Properties every server-side assignor (KIP-848) must keep, over generated groups: each partition of
each subscribed existing topic assigned exactly once and only to a subscriber, nothing of an
unsubscribed or deleted topic; ``uniform``: homogeneous sizes within one, recomputing from its own
result changes nothing, a joining member takes partitions only from the others' surplus; ``range``:
the exact contiguous placements.  Derandomized: a failure replays as is."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from server_assignor_fakes import (
    HETEROGENEOUS,
    HOMOGENEOUS,
    FakeTopicDescriber,
    check_balanced,
    check_valid,
    group_spec,
    member,
    plain,
    with_targets,
)

from kafkette.broker.group.assignors.api import GroupSpec
from kafkette.broker.group.assignors.range import RangeAssignor
from kafkette.broker.group.assignors.uniform import UniformAssignor

PROPERTIES = settings(
    max_examples=250,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

DELETED_TOPIC = bytes([0xEE] * 16)
"""A topic a current target still holds but the describer no longer knows."""


@st.composite
def groups(draw, homogeneous: bool):
    """(GroupSpec, describer): up to 5 topics of 1-9 partitions, one of them maybe unsubscribed by
    all, 1-6 members (some static), and a consistent current target (each partition held by at most
    one member, possibly one that no longer subscribes to it, plus partitions of a deleted topic)."""
    topic_count = draw(st.integers(1, 5))
    topic_ids = [
        bytes([0x10 * (i + 1)]) + draw(st.binary(min_size=15, max_size=15)) for i in range(topic_count)
    ]
    counts = {topic_id: draw(st.integers(1, 9)) for topic_id in topic_ids}
    member_count = draw(st.integers(1, 6))
    member_ids = draw(
        st.lists(
            st.text("abcdefgh", min_size=1, max_size=3),
            min_size=member_count,
            max_size=member_count,
            unique=True,
        )
    )
    subscribable = topic_ids[:-1] if topic_count > 1 and draw(st.booleans()) else topic_ids
    if homogeneous:
        shared = frozenset(draw(st.lists(st.sampled_from(subscribable), unique=True)))
        subscriptions = [shared] * member_count
    else:
        subscriptions = [
            frozenset(draw(st.lists(st.sampled_from(subscribable), unique=True))) for _ in member_ids
        ]
    targets: list[dict[bytes, set[int]]] = [{} for _ in member_ids]
    for topic_id in [*topic_ids, DELETED_TOPIC]:
        for partition in range(counts.get(topic_id, 3)):
            owner = draw(st.integers(-1, member_count - 1))
            if owner >= 0:
                targets[owner].setdefault(topic_id, set()).add(partition)
    members = {
        member_id: member(
            *subscriptions[i],
            assigned=targets[i],
            instance_id=f"static-{draw(st.integers(0, 99))}-{member_id}" if draw(st.booleans()) else None,
        )
        for i, member_id in enumerate(member_ids)
    }
    spec = group_spec(members, HOMOGENEOUS if homogeneous else HETEROGENEOUS)
    return spec, FakeTopicDescriber(counts)


@PROPERTIES
@given(st.booleans().flatmap(lambda homogeneous: groups(homogeneous)))
def test_uniform_assigns_every_subscribed_partition_once_to_a_subscriber(group):
    spec, topics = group
    result = UniformAssignor().assign(spec, topics)
    check_valid(spec, topics, result)
    if spec.subscription_type is HOMOGENEOUS:
        check_balanced(result)


@PROPERTIES
@given(st.booleans().flatmap(lambda homogeneous: groups(homogeneous)))
def test_range_assigns_every_subscribed_partition_once_to_a_subscriber(group):
    spec, topics = group
    check_valid(spec, topics, RangeAssignor().assign(spec, topics))


@PROPERTIES
@given(st.booleans().flatmap(lambda homogeneous: groups(homogeneous)), st.randoms(use_true_random=False))
def test_uniform_recomputed_from_its_own_result_in_any_member_order_changes_nothing(group, random):
    spec, topics = group
    first = UniformAssignor().assign(spec, topics)
    order = list(spec.members)
    random.shuffle(order)
    again = UniformAssignor().assign(with_targets(spec, first, order), topics)
    assert plain(again) == plain(first)


@PROPERTIES
@given(groups(homogeneous=True))
def test_uniform_joining_member_only_takes_partitions_from_the_others(group):
    spec, topics = group
    settled = UniformAssignor().assign(spec, topics)
    subscribed = next(iter(spec.members.values())).subscribed_topic_ids
    joined = with_targets(spec, settled)
    joined = group_spec({**joined.members, "joiner-0": member(*subscribed)}, HOMOGENEOUS)
    result = UniformAssignor().assign(joined, topics)
    check_valid(joined, topics, result)
    check_balanced(result)
    before, after = plain(settled), plain(result)
    for member_id in spec.members:
        for topic_id, partitions in after[member_id].items():
            assert partitions <= before[member_id].get(topic_id, set()), member_id


def _reference_ranges(spec: GroupSpec, counts: dict[bytes, int]) -> dict[str, dict[bytes, set[int]]]:
    """Kafka's range placement, recomputed directly (ASCII ids: Java's string order is Python's):
    static members first by instance id, then the others by member id; per topic, its subscribers
    take consecutive slices, the first ``count % subscribers`` one partition longer."""

    def key(member_id: str) -> tuple[int, str]:
        instance_id = spec.members[member_id].instance_id
        return (0, instance_id) if instance_id is not None else (1, member_id)

    order = sorted(spec.members, key=key)
    expected: dict[str, dict[bytes, set[int]]] = {member_id: {} for member_id in order}
    for topic_id, count in counts.items():
        if spec.subscription_type is HOMOGENEOUS:
            first = spec.members[order[0]].subscribed_topic_ids
            subscribers = order if topic_id in first else []
        else:
            subscribers = [m for m in order if topic_id in spec.members[m].subscribed_topic_ids]
        start = 0
        for k, member_id in enumerate(subscribers):
            length = count // len(subscribers) + (1 if k < count % len(subscribers) else 0)
            if length:
                expected[member_id][topic_id] = set(range(start, start + length))
            start += length
    return expected


@PROPERTIES
@given(st.booleans().flatmap(lambda homogeneous: groups(homogeneous)))
def test_range_places_contiguous_ranges_in_member_order(group):
    spec, topics = group
    assert plain(RangeAssignor().assign(spec, topics)) == _reference_ranges(spec, topics.partition_counts)
