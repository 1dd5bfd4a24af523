"""Options of the kafkette data source: Spark's Kafka names, defaults and rejections."""

from __future__ import annotations

import pickle
import ssl

import pytest

from kafkette.client.spark.options import (
    Assign,
    OffsetSpec,
    SinkOptions,
    SourceOptions,
    Subscribe,
    SubscribePattern,
    parse_assign_json,
)
from kafkette.protocol.topic_partition import TopicPartition
from tests.tls_certificates import CertificateAuthority

BOOT = {"kafkette.bootstrap.servers": "127.0.0.1:9092"}


def test_streaming_defaults_are_sparks():
    options = SourceOptions.parse({**BOOT, "subscribe": "a, b"}, streaming=True)
    assert options.subscription == Subscribe(("a", "b"))
    assert options.starting == OffsetSpec("latest")
    assert options.ending is None
    assert options.max_offsets_per_trigger is None
    assert options.fail_on_data_loss is True
    assert options.include_headers is False
    assert options.poll_timeout_ms == 120000


def test_batch_defaults_read_earliest_to_latest():
    options = SourceOptions.parse({**BOOT, "subscribe": "a"}, streaming=False)
    assert (options.starting, options.ending) == (OffsetSpec("earliest"), OffsetSpec("latest"))


def test_option_names_are_case_insensitive():
    options = SourceOptions.parse(
        {
            "KAFKETTE.BOOTSTRAP.SERVERS": "h:1",
            "SubscribePattern": "t-.*",
            "MAXOFFSETSPERTRIGGER": "7",
            "failondataloss": "False",
            "includeheaders": "TRUE",
        },
        streaming=True,
    )
    assert options.subscription == SubscribePattern("t-.*")
    assert options.max_offsets_per_trigger == 7
    assert options.fail_on_data_loss is False and options.include_headers is True


def test_json_offsets_keep_minus_two_and_minus_one():
    options = SourceOptions.parse(
        {**BOOT, "subscribe": "t", "startingOffsets": '{"t":{"0":23,"1":-2,"2":-1}}'}, streaming=True
    )
    assert options.starting == OffsetSpec(
        "specific", {TopicPartition("t", 0): 23, TopicPartition("t", 1): -2, TopicPartition("t", 2): -1}
    )


def test_assign_json_gives_sorted_partitions():
    assert parse_assign_json('{"b":[1,0],"a":[2]}') == [
        TopicPartition("a", 2),
        TopicPartition("b", 0),
        TopicPartition("b", 1),
    ]
    options = SourceOptions.parse({**BOOT, "assign": '{"t":[0]}'}, streaming=False)
    assert options.subscription == Assign((TopicPartition("t", 0),))


def test_subscribe_pattern_matches_whole_topic_names():
    pattern = SubscribePattern("events-.*")
    assert pattern.matches("events-1") and not pattern.matches("old-events-1")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"subscribe": "t"}, "kafkette.bootstrap.servers"),
        ({**BOOT}, "subscribe, subscribePattern, assign"),
        ({**BOOT, "subscribe": "t", "assign": '{"t":[0]}'}, "Only one of"),
        ({**BOOT, "subscribe": " , "}, "No topics to subscribe"),
        ({**BOOT, "subscribePattern": "("}, "not a valid regex"),
        ({**BOOT, "assign": "[0,1]"}, "option 'assign'"),
        ({**BOOT, "assign": "{oops"}, "option 'assign'"),
        ({**BOOT, "assign": "{}"}, "option 'assign'"),
        ({**BOOT, "subscribe": "t", "startingOffsets": "{}"}, "option 'startingOffsets'"),
        ({**BOOT, "subscribe": "t", "startingOffsets": "[1]"}, "option 'startingOffsets'"),
        ({**BOOT, "subscribe": "t", "startingOffsets": "{oops"}, "option 'startingOffsets'"),
        ({**BOOT, "subscribe": "t", "startingOffsets": '{"t":{"0":-3}}'}, "option 'startingOffsets'"),
        ({**BOOT, "subscribe": "t", "maxOffsetsPerTrigger": "0"}, "maxOffsetsPerTrigger"),
        ({**BOOT, "subscribe": "t", "failOnDataLoss": "yes"}, "failOnDataLoss"),
        ({**BOOT, "subscribe": "t", "endingOffsets": "latest"}, "not supported for streaming"),
        ({**BOOT, "subscribe": "t", "kafkette.auto.offset.reset": "earliest"}, "startingOffsets"),
        ({**BOOT, "subscribe": "t", "kafkette.group.id": "g"}, "no consumer group"),
        ({**BOOT, "subscribe": "t", "kafkette.allow.auto.create.topics": "true"}, "never creates topics"),
        (
            {**BOOT, "subscribe": "t", "kafkette.no.such.setting": "1"},
            "Unknown Consumer property 'kafkette.no.such.setting' in the Spark options",
        ),
        (
            {**BOOT, "subscribe": "t", "kafkette.request.timeout.ms": "soon"},
            "Invalid value 'soon' for property 'kafkette.request.timeout.ms'",
        ),
    ],
)
def test_bad_stream_options_are_refused_naming_the_option(options, message):
    with pytest.raises(ValueError, match=message):
        SourceOptions.parse(options, streaming=True)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({**BOOT, "subscribe": "t", "startingOffsets": "latest"}, "can't be 'latest'"),
        ({**BOOT, "subscribe": "t", "endingOffsets": "earliest"}, "can't be 'earliest'"),
        ({**BOOT, "subscribe": "t", "endingOffsets": '{"t":{"0":-2}}'}, "can't contain -2"),
        ({**BOOT, "subscribe": "t", "startingOffsets": '{"t":{"0":-1}}'}, "can't contain -1"),
    ],
)
def test_bad_batch_offsets_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        SourceOptions.parse(options, streaming=False)


def test_client_settings_become_sdk_keywords_of_the_right_type():
    options = SourceOptions.parse(
        {
            **BOOT,
            "subscribe": "t",
            "kafkette.request.timeout.ms": "5000",
            "kafkette.fetch.max.wait.ms": "100",
        },
        streaming=True,
    )
    assert options.consumer_settings == {"request_timeout_ms": 5000, "fetch_max_wait_ms": 100}
    sink = SinkOptions.parse(
        {
            **BOOT,
            "topic": "out",
            "kafkette.acks": "1",
            "kafkette.linger.ms": "20",
            "kafkette.batch.size": "65536",
            "kafkette.compression.type": "gzip",
        }
    )
    assert sink.topic == "out"
    assert sink.producer_settings == {
        "acks": 1,
        "linger_ms": 20.0,
        "max_batch_size": 65536,
        "compression_type": "gzip",
    }


def test_kafka_prefixed_security_options_become_sdk_keywords_and_pickle(tmp_path):
    ca = CertificateAuthority(tmp_path)
    kafka_options = {
        "kafka.bootstrap.servers": "127.0.0.1:9093",
        "kafka.security.protocol": "SASL_SSL",
        "kafka.sasl.mechanism": "SCRAM-SHA-512",
        "kafka.sasl.jaas.config": (
            'org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="s3";'
        ),
        "kafka.ssl.truststore.type": "PEM",
        "kafka.ssl.truststore.location": str(ca.files.certificate),
    }
    source = pickle.loads(
        pickle.dumps(SourceOptions.parse({**kafka_options, "subscribe": "t"}, streaming=False))
    )
    sink = pickle.loads(pickle.dumps(SinkOptions.parse(kafka_options)))
    assert source.bootstrap_servers == sink.bootstrap_servers == "127.0.0.1:9093"
    for settings in (source.consumer_settings, sink.producer_settings):
        assert isinstance(settings.pop("ssl_context"), ssl.SSLContext)
        assert settings == {
            "security_protocol": "SASL_SSL",
            "sasl_mechanism": "SCRAM-SHA-512",
            "sasl_plain_username": "alice",
            "sasl_plain_password": "s3",
        }
    with pytest.raises(ValueError, match="Unknown Producer property 'kafka.no.such.setting'"):
        SinkOptions.parse({**kafka_options, "kafka.no.such.setting": "1"})


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"topic": "t"}, "kafkette.bootstrap.servers"),
        ({**BOOT, "topic": " "}, "'topic' must not be empty"),
        ({**BOOT, "kafkette.value.serializer": "x"}, "always written as bytes"),
        ({**BOOT, "kafkette.acks": "2"}, "acks"),
    ],
)
def test_bad_sink_options_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        SinkOptions.parse(options)
