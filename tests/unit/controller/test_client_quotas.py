"""Client quotas at the controller (KIP-546): AlterClientQuotas with Kafka's
``ClientQuotaControlManager`` rules and messages, ``ClientQuotaRecord``s only for changed values,
``validate_only`` writing nothing, quotas read back by a new controller and kept in its snapshot,
and every live broker told the altered entities' whole quota sets in UpdateMetadata."""

from __future__ import annotations

from controller_fakes import new_controller, register_live_brokers, wire_roundtrip
from test_kafka_controller import replay_log

from kafkette.controller.metadata_records import ClientQuotaRecord
from kafkette.controller.metadata_snapshot import snapshot_records
from kafkette.protocol.apis.client_quotas import (
    AlterClientQuotasEntry,
    AlterClientQuotasRequest,
    ClientQuotaEntityData,
    ClientQuotaOpData,
)
from kafkette.protocol.errors import Errors


def entry(entity, *ops):
    return AlterClientQuotasEntry(
        entity=[ClientQuotaEntityData(entity_type=t, entity_name=n) for t, n in entity],
        ops=[ClientQuotaOpData(key=k, value=0.0 if v is None else v, remove=v is None) for k, v in ops],
    )


async def alter(controller, *entries, validate_only=False):
    request = AlterClientQuotasRequest(entries=list(entries), validate_only=validate_only)
    response = wire_roundtrip(await controller.alter_client_quotas(request))
    return [
        (tuple((e.entity_type, e.entity_name) for e in r.entity), r.error_code, r.error_message)
        for r in response.entries
    ]


ALICE = (("user", "alice"),)
APP = (("client-id", "app"),)
ALICE_APP = (("client-id", "app"), ("user", "alice"))
DEFAULT_USER = (("user", None),)


async def test_quotas_of_each_entity_kind_are_kept_and_read_back_by_a_new_controller(
    tmp_path, clock, channel
):
    controller = new_controller(tmp_path, clock, channel)
    await controller.start()
    try:
        outcome = await alter(
            controller,
            entry(ALICE, ("producer_byte_rate", 1024.0)),
            entry(APP, ("consumer_byte_rate", 2048.0), ("request_percentage", 12.5)),
            entry((("user", "alice"), ("client-id", "app")), ("controller_mutation_rate", 5.0)),
            entry(DEFAULT_USER, ("producer_byte_rate", 512.0)),
            entry((("ip", "10.0.0.1"),), ("connection_creation_rate", 20.0)),
        )
        assert [code for _, code, _ in outcome] == [Errors.NONE] * 5
        quotas = dict(controller.context.client_quotas)
        assert quotas == {
            ALICE: {"producer_byte_rate": 1024.0},
            APP: {"consumer_byte_rate": 2048.0, "request_percentage": 12.5},
            ALICE_APP: {"controller_mutation_rate": 5.0},
            DEFAULT_USER: {"producer_byte_rate": 512.0},
            (("ip", "10.0.0.1"),): {"connection_creation_rate": 20.0},
        }
        assert sum(isinstance(r, ClientQuotaRecord) for r in snapshot_records(controller.context)) == 6
        # setting the same value again writes nothing; removing one key leaves the others
        before = len(replay_log(tmp_path))
        assert (await alter(controller, entry(APP, ("consumer_byte_rate", 2048.0))))[0][1] == Errors.NONE
        assert len(replay_log(tmp_path)) == before
        await alter(
            controller, entry(APP, ("request_percentage", None)), entry(ALICE, ("producer_byte_rate", None))
        )
    finally:
        await controller.stop()
    again = new_controller(tmp_path, clock, channel)
    await again.start()
    try:
        assert ALICE not in again.context.client_quotas
        assert again.context.client_quotas[APP] == {"consumer_byte_rate": 2048.0}
        assert again.context.client_quotas[DEFAULT_USER] == {"producer_byte_rate": 512.0}
    finally:
        await again.stop()


async def test_each_refusal_has_kafkas_message_and_writes_nothing(controller, tmp_path):
    cases = [
        (entry((), ("producer_byte_rate", 1.0)), "Invalid empty client quota entity"),
        (entry((("group", "g"),), ("producer_byte_rate", 1.0)), "Unhandled client quota entity type: group"),
        (entry((("user", ""),), ("producer_byte_rate", 1.0)), "Empty user not supported"),
        (
            entry((("ip", "1.2.3.4"), ("user", "u")), ("connection_creation_rate", 1.0)),
            "Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId",
        ),
        (
            entry((("ip", "not an ip"),), ("connection_creation_rate", 1.0)),
            "not an ip is not a valid IP or resolvable host.",
        ),
        (
            entry(ALICE, ("connection_creation_rate", 1.0)),
            "Invalid configuration key connection_creation_rate",
        ),
        (entry(APP, ("producer_byte_rate", 0.0)), "Quota producer_byte_rate must be greater than 0"),
        (
            entry((("client-id", "b"),), ("consumer_byte_rate", 10.5)),
            "consumer_byte_rate cannot be a fractional value.",
        ),
        (
            entry((("user", "c"),), ("producer_byte_rate", 2.0**64)),
            "Proposed value for producer_byte_rate is too large for a LONG.",
        ),
        (
            entry((("ip", "::1"),), ("connection_creation_rate", 2.0**32)),
            "Proposed value for connection_creation_rate is too large for an INT.",
        ),
    ]
    for request_entry, message in cases:
        [(_, code, text)] = await alter(controller, request_entry)
        assert (code, text) == (Errors.INVALID_REQUEST, message)
    assert controller.context.client_quotas == {}
    assert not any(isinstance(r, ClientQuotaRecord) for r in replay_log(tmp_path))


async def test_a_key_or_an_entity_named_twice_is_refused_as_kafka_refuses_it(controller):
    outcome = await alter(
        controller,
        entry(ALICE, ("producer_byte_rate", 1.0), ("producer_byte_rate", 2.0)),
        entry(APP, ("producer_byte_rate", 3.0)),
        entry(APP, ("consumer_byte_rate", 4.0)),
    )
    assert outcome == [
        (ALICE, Errors.INVALID_REQUEST, "Ignoring duplicate entity ClientQuotaEntity(entries={user=alice})"),
        (APP, Errors.INVALID_REQUEST, "Ignoring duplicate entity ClientQuotaEntity(entries={client-id=app})"),
    ]
    # as in Kafka, the first entry of an entity named twice was already decided
    assert controller.context.client_quotas == {APP: {"producer_byte_rate": 3.0}}


async def test_validate_only_checks_and_writes_nothing(controller):
    assert (await alter(controller, entry(ALICE, ("producer_byte_rate", 1.0)), validate_only=True))[0][1] == 0
    assert (await alter(controller, entry(ALICE, ("producer_byte_rate", 0.5)), validate_only=True))[0][1] == (
        Errors.INVALID_REQUEST
    )
    assert controller.context.client_quotas == {}


async def test_every_live_broker_gets_the_altered_entities_whole_quota_sets(controller, channel):
    await register_live_brokers(controller, 1, 2)
    await alter(controller, entry(ALICE, ("producer_byte_rate", 100.0)))
    channel.clear()
    await alter(controller, entry(ALICE, ("consumer_byte_rate", 200.0)))
    await alter(controller, entry(ALICE, ("producer_byte_rate", None), ("consumer_byte_rate", None)))
    for broker_id in (1, 2):
        sets = [
            [
                ([(e.entity_type, e.entity_name) for e in q.entity], [(v.key, v.value) for v in q.values])
                for q in r.client_quotas
            ]
            for r in channel.update_metadata()[broker_id]
        ]
        assert sets == [
            [([("user", "alice")], [("consumer_byte_rate", 200.0), ("producer_byte_rate", 100.0)])],
            [([("user", "alice")], [])],
        ]
