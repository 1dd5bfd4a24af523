"""The server-side assignors a broker offers (``group.consumer.assignors``).

Owns: turning the config's list of names into assignor instances, the first being the default a
member gets when it names none.  Does not own choosing a group's assignor among them (the
coordinator: the members' most-requested ``ServerAssignor``).

Kafka concept: ``GroupCoordinatorConfig.consumerGroupAssignors`` (the built-in ``uniform`` and
``range``, also by their Kafka class names; custom classes are not loaded).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kafkette.broker.group.assignors.api import ConsumerGroupPartitionAssignor
from kafkette.broker.group.assignors.range import RangeAssignor
from kafkette.broker.group.assignors.uniform import UniformAssignor
from kafkette.common.config_def import ConfigError

CONSUMER_GROUP_ASSIGNORS_CONFIG = "group.consumer.assignors"
CONSUMER_GROUP_ASSIGNORS_DEFAULT = ("uniform", "range")
"""Kafka's default: ``uniform`` (the default assignor), then ``range``."""

BUILTIN_ASSIGNORS: dict[str, Callable[[], ConsumerGroupPartitionAssignor]] = {
    "uniform": UniformAssignor,
    "range": RangeAssignor,
    "org.apache.kafka.coordinator.group.assignor.UniformAssignor": UniformAssignor,
    "org.apache.kafka.coordinator.group.assignor.RangeAssignor": RangeAssignor,
}
"""The accepted entries of ``group.consumer.assignors``: the built-in names and Kafka's class names."""


def consumer_group_assignors(names: str | Sequence[str]) -> list[ConsumerGroupPartitionAssignor]:
    """The assignors ``group.consumer.assignors`` names, in its order (the first is the default).

    Args:
        names: the config value, a comma-separated string (blanks ignored, as Kafka's LIST type) or
            a sequence of entries; each a built-in name (``uniform``, ``range``) or Kafka's class name
            of one.

    Returns:
        One new assignor per entry.

    Raises:
        ConfigError: the list is empty, has a duplicate entry, or names an assignor Kafkette does not
            have (Kafka: "Class ... cannot be found").
    """
    if isinstance(names, str):
        entries = [part.strip() for part in names.split(",") if part.strip()]
    else:
        entries = [str(name).strip() for name in names if str(name).strip()]
    if not entries:
        raise ConfigError(f"Configuration '{CONSUMER_GROUP_ASSIGNORS_CONFIG}' must not be empty.")
    duplicates = sorted({entry for entry in entries if entries.count(entry) > 1})
    if duplicates:
        raise ConfigError(
            f"Configuration '{CONSUMER_GROUP_ASSIGNORS_CONFIG}' values must not be duplicated: {duplicates}"
        )
    assignors = []
    for entry in entries:
        factory = BUILTIN_ASSIGNORS.get(entry)
        if factory is None:
            raise ConfigError(
                f"Invalid value {entry} for configuration {CONSUMER_GROUP_ASSIGNORS_CONFIG}: Class {entry} "
                f"cannot be found (supported: {', '.join(BUILTIN_ASSIGNORS)})"
            )
        assignors.append(factory())
    return assignors
