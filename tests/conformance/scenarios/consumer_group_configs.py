"""KIP-848's group configs applied to a consumer group: ``consumer.heartbeat.interval.ms`` and
``consumer.assignment.interval.ms`` set on a GROUP resource (IncrementalAlterConfigs v1) replace the
broker's ``group.consumer.*`` values for that group alone, as Kafka 4.3.1's ``GroupConfigManager`` and
``GroupMetadataManager.consumerGroupHeartbeatIntervalMs`` / ``consumerGroupAssignmentIntervalMs`` apply
them; removing the override gives the broker's value back.  (``consumer.session.timeout.ms`` is applied
the same way; its effect, a fence after the session, is left to the unit tests.)
"""

from __future__ import annotations

import time
from typing import Any

from tests.conformance.catalogue import scenario
from tests.conformance.scenarios.configs import DELETE, SET, alter_group
from tests.conformance.scenarios.consumer_groups import group_topic, heartbeat, join, shape
from tests.conformance.scenarios.groups import coordinator
from tests.conformance.target import Target

CONFIG_SETTLE_S = 1.0
"""How long a group config change is given to reach the group coordinators (Kafka's brokers read it from
the metadata log, Kafkette's from the controller's UpdateMetadata, a moment after the answer)."""


@scenario("consumer-groups/config/heartbeat-interval")
def _heartbeat_interval(t: Target) -> Any:
    """A group with ``consumer.heartbeat.interval.ms`` 7000: its members are told 7000, a group without
    an override the broker's 5000; once the override is deleted the next heartbeat is told 5000."""
    names = group_topic(t, "cg-config-hb-topic", 1)
    sub = ["cg-config-hb-topic"]
    out: dict[str, Any] = {
        "set": alter_group(t, "cg-config-hb", [("consumer.heartbeat.interval.ms", SET, "7000")])
    }
    time.sleep(CONFIG_SETTLE_S)
    node = coordinator(t, "cg-config-hb")
    other = coordinator(t, "cg-config-hb-other")
    first = join(t, node, "cg-config-hb", "cg-config-hb-member", sub)
    out["overridden"] = shape(first, names)
    out["other_group"] = shape(join(t, other, "cg-config-hb-other", "cg-config-hb-other-member", sub), names)
    out["delete"] = alter_group(t, "cg-config-hb", [("consumer.heartbeat.interval.ms", DELETE, None)])
    time.sleep(CONFIG_SETTLE_S)
    out["after_delete"] = shape(
        heartbeat(t, node, "cg-config-hb", "cg-config-hb-member", first.member_epoch), names
    )
    heartbeat(t, node, "cg-config-hb", "cg-config-hb-member", -1)
    heartbeat(t, other, "cg-config-hb-other", "cg-config-hb-other-member", -1)
    return out


@scenario("consumer-groups/config/assignment-interval")
def _assignment_interval(t: Target) -> Any:
    """A group with ``consumer.assignment.interval.ms`` 0: a second member joining right after the first
    gets a new target at once (epoch 3), where the broker's 1000 ms would defer it (epoch 2)."""
    names = group_topic(t, "cg-config-interval-topic", 2)
    sub = ["cg-config-interval-topic"]
    out: dict[str, Any] = {
        "set": alter_group(t, "cg-config-interval", [("consumer.assignment.interval.ms", SET, "0")])
    }
    time.sleep(CONFIG_SETTLE_S)
    node = coordinator(t, "cg-config-interval")
    a = join(t, node, "cg-config-interval", "cg-config-interval-a", sub, server_assignor="range")
    b = join(t, node, "cg-config-interval", "cg-config-interval-b", sub, server_assignor="range")
    out["a"], out["b"] = shape(a, names), shape(b, names)
    for member in ("cg-config-interval-a", "cg-config-interval-b"):
        heartbeat(t, node, "cg-config-interval", member, -1)
    alter_group(t, "cg-config-interval", [("consumer.assignment.interval.ms", DELETE, None)])
    return out
