"""The server-side assignors a broker offers, by name (``group.consumer.assignors``).

Owns: one new assignor instance per configured name, in the config's order (the first is the default a
member gets when it names none).  Does not own reading or checking the config (``group_coordinator_config.
consumer_group_assignors`` turns Kafka's class names into these names and refuses unknown ones) nor
choosing a group's assignor among them (the coordinator: the members' most-requested ``ServerAssignor``).

Kafka concept: ``GroupCoordinatorConfig.consumerGroupAssignors`` (the built-in ``uniform`` and ``range``;
custom classes are not loaded).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kafkette.broker.group.assignors.api import ConsumerGroupPartitionAssignor
from kafkette.broker.group.assignors.range import RangeAssignor
from kafkette.broker.group.assignors.uniform import UniformAssignor

ASSIGNOR_FACTORIES: dict[str, Callable[[], ConsumerGroupPartitionAssignor]] = {
    "uniform": UniformAssignor,
    "range": RangeAssignor,
}
"""Built-in name -> the assignor's class."""


def new_assignors(names: Sequence[str]) -> dict[str, ConsumerGroupPartitionAssignor]:
    """``{name: assignor}`` for built-in names, in their order (the first is the default).

    Args:
        names: built-in names, as ``group_coordinator_config.consumer_group_assignors`` returns them.

    Raises:
        ValueError: a name that is not built in, or no name at all.
    """
    if not names:
        raise ValueError("no consumer group assignor configured")
    unknown = [name for name in names if name not in ASSIGNOR_FACTORIES]
    if unknown:
        raise ValueError(
            f"unknown consumer group assignors {unknown}; built in: {sorted(ASSIGNOR_FACTORIES)}"
        )
    return {name: ASSIGNOR_FACTORIES[name]() for name in names}
