/*
 * Prints, as JSON, the key and value bytes (hex) of fixed KIP-848 consumer group records of
 * __consumer_offsets (record types 3 to 8 and 16) as Apache Kafka writes them: each record is built
 * with Kafka's generated message classes (org.apache.kafka.coordinator.group.generated.*) and
 * framed by Kafka's own GroupCoordinatorRecordSerde (the key prefixed with its int16 record type,
 * the value with its int16 version, a tombstone's value null).  Every record is read back through
 * the same serde and must equal what was written.
 *
 * Run with the peer's jars (Java 11+ runs a single source file without javac):
 *   java -cp "$HOME/.cache/kafkette/kafka-4.3.1/libs/*" tests/peers/kafka/SerializeGroupRecords.java \
 *     > tests/unit/broker/group/fixtures/consumer_group_records.json
 * tests/unit/broker/group/test_consumer_group_records.py checks Kafkette's codec against that
 * fixture; tests/interop/test_kafka_consumer_group_records.py runs this program again and checks
 * the fixture is current.  The Python side builds the same records under the same names.
 */
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.group.GroupCoordinatorRecordSerde;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupCurrentMemberAssignmentKey;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupCurrentMemberAssignmentValue;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupMemberMetadataKey;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupMemberMetadataValue;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupMetadataKey;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupMetadataValue;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupPartitionMetadataKey;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupPartitionMetadataValue;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupRegularExpressionKey;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupRegularExpressionValue;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupTargetAssignmentMemberKey;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupTargetAssignmentMemberValue;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupTargetAssignmentMetadataKey;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupTargetAssignmentMetadataValue;
import org.apache.kafka.server.common.ApiMessageAndVersion;

public class SerializeGroupRecords {
    static final String GROUP = "gr\u00fcppe";
    static final Uuid TOPIC_A = new Uuid(0x0102030405060708L, 0x090a0b0c0d0e0f10L);
    static final Uuid TOPIC_B = new Uuid(0xf1e2d3c4b5a69788L, 0x7766554433221100L);
    static final GroupCoordinatorRecordSerde SERDE = new GroupCoordinatorRecordSerde();
    static final List<String> LINES = new ArrayList<>();

    public static void main(String[] args) {
        // 3 ConsumerGroupMetadata: MetadataHash (tag 0) absent at its default 0, then present
        record("consumer_group_metadata", new ConsumerGroupMetadataKey().setGroupId(GROUP),
            new ConsumerGroupMetadataValue().setEpoch(5));
        record("consumer_group_metadata_hash", new ConsumerGroupMetadataKey().setGroupId(GROUP),
            new ConsumerGroupMetadataValue().setEpoch(7).setMetadataHash(-1234567890123456789L));
        record("consumer_group_metadata_tombstone", new ConsumerGroupMetadataKey().setGroupId(GROUP), null);

        // 4 ConsumerGroupPartitionMetadata (legacy: read, never written by 4.3)
        record("consumer_group_partition_metadata", new ConsumerGroupPartitionMetadataKey().setGroupId(GROUP),
            new ConsumerGroupPartitionMetadataValue().setTopics(Arrays.asList(
                new ConsumerGroupPartitionMetadataValue.TopicMetadata()
                    .setTopicId(TOPIC_A).setTopicName("orders").setNumPartitions(2)
                    .setPartitionMetadata(Arrays.asList(
                        new ConsumerGroupPartitionMetadataValue.PartitionMetadata()
                            .setPartition(0).setRacks(Arrays.asList("rack-a", "rack-b")),
                        new ConsumerGroupPartitionMetadataValue.PartitionMetadata()
                            .setPartition(1).setRacks(Collections.emptyList()))),
                new ConsumerGroupPartitionMetadataValue.TopicMetadata()
                    .setTopicId(TOPIC_B).setTopicName("payments").setNumPartitions(1)
                    .setPartitionMetadata(Collections.emptyList()))));
        record("consumer_group_partition_metadata_tombstone",
            new ConsumerGroupPartitionMetadataKey().setGroupId(GROUP), null);

        // 5 ConsumerGroupMemberMetadata: a consumer-protocol member (ClassicMemberMetadata null,
        // which Kafka writes as tag 0 with a null marker), a classic one, one whose classic metadata
        // is the empty default (tag 0 left out)
        ConsumerGroupMemberMetadataKey memberKey =
            new ConsumerGroupMemberMetadataKey().setGroupId(GROUP).setMemberId("member-1");
        record("consumer_group_member_metadata_consumer", memberKey,
            new ConsumerGroupMemberMetadataValue()
                .setInstanceId(null).setRackId(null).setClientId("client-1").setClientHost("/127.0.0.1")
                .setSubscribedTopicNames(Arrays.asList("orders", "payments")).setSubscribedTopicRegex(null)
                .setRebalanceTimeoutMs(30000).setServerAssignor("uniform").setClassicMemberMetadata(null));
        record("consumer_group_member_metadata_classic", memberKey,
            new ConsumerGroupMemberMetadataValue()
                .setInstanceId("instance-1").setRackId("rack-a").setClientId("").setClientHost("host")
                .setSubscribedTopicNames(Collections.emptyList()).setSubscribedTopicRegex("^orders-.*")
                .setRebalanceTimeoutMs(60000).setServerAssignor(null)
                .setClassicMemberMetadata(new ConsumerGroupMemberMetadataValue.ClassicMemberMetadata()
                    .setSessionTimeoutMs(45000)
                    .setSupportedProtocols(Arrays.asList(
                        new ConsumerGroupMemberMetadataValue.ClassicProtocol()
                            .setName("range").setMetadata(new byte[] {0, 1, 2, (byte) 0xff}),
                        new ConsumerGroupMemberMetadataValue.ClassicProtocol()
                            .setName("roundrobin").setMetadata(new byte[0])))));
        record("consumer_group_member_metadata_empty_classic", memberKey,
            new ConsumerGroupMemberMetadataValue()
                .setInstanceId(null).setRackId(null).setClientId("c").setClientHost("h")
                .setSubscribedTopicNames(Arrays.asList("orders")).setSubscribedTopicRegex(null)
                .setServerAssignor(null)
                .setClassicMemberMetadata(new ConsumerGroupMemberMetadataValue.ClassicMemberMetadata()));
        record("consumer_group_member_metadata_tombstone", memberKey, null);

        // 6 ConsumerGroupTargetAssignmentMetadata: AssignmentTimestamp (tag 0) absent, then present
        ConsumerGroupTargetAssignmentMetadataKey targetKey =
            new ConsumerGroupTargetAssignmentMetadataKey().setGroupId(GROUP);
        record("consumer_group_target_assignment_metadata", targetKey,
            new ConsumerGroupTargetAssignmentMetadataValue().setAssignmentEpoch(3));
        record("consumer_group_target_assignment_metadata_timestamp", targetKey,
            new ConsumerGroupTargetAssignmentMetadataValue().setAssignmentEpoch(4)
                .setAssignmentTimestamp(1700000000123L));
        record("consumer_group_target_assignment_metadata_tombstone", targetKey, null);

        // 7 ConsumerGroupTargetAssignmentMember
        ConsumerGroupTargetAssignmentMemberKey targetMemberKey =
            new ConsumerGroupTargetAssignmentMemberKey().setGroupId(GROUP).setMemberId("member-1");
        record("consumer_group_target_assignment_member", targetMemberKey,
            new ConsumerGroupTargetAssignmentMemberValue().setTopicPartitions(Arrays.asList(
                new ConsumerGroupTargetAssignmentMemberValue.TopicPartition()
                    .setTopicId(TOPIC_A).setPartitions(Arrays.asList(0, 2)),
                new ConsumerGroupTargetAssignmentMemberValue.TopicPartition()
                    .setTopicId(TOPIC_B).setPartitions(Collections.emptyList()))));
        record("consumer_group_target_assignment_member_empty", targetMemberKey,
            new ConsumerGroupTargetAssignmentMemberValue().setTopicPartitions(Collections.emptyList()));
        record("consumer_group_target_assignment_member_tombstone", targetMemberKey, null);

        // 8 ConsumerGroupCurrentMemberAssignment: AssignmentEpochs (tag 0) present, null (written with
        // a null marker) and empty (left out)
        ConsumerGroupCurrentMemberAssignmentKey currentKey =
            new ConsumerGroupCurrentMemberAssignmentKey().setGroupId(GROUP).setMemberId("member-1");
        record("consumer_group_current_member_assignment", currentKey,
            new ConsumerGroupCurrentMemberAssignmentValue()
                .setMemberEpoch(5).setPreviousMemberEpoch(4).setState((byte) 1)
                .setAssignedPartitions(Arrays.asList(
                    new ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions()
                        .setTopicId(TOPIC_A).setPartitions(Arrays.asList(0, 1)).setAssignmentEpochs(Arrays.asList(5, 3)),
                    new ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions()
                        .setTopicId(TOPIC_B).setPartitions(Arrays.asList(7)).setAssignmentEpochs(null)))
                .setPartitionsPendingRevocation(Arrays.asList(
                    new ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions()
                        .setTopicId(TOPIC_B).setPartitions(Arrays.asList(2))
                        .setAssignmentEpochs(Collections.emptyList()))));
        record("consumer_group_current_member_assignment_empty", currentKey,
            new ConsumerGroupCurrentMemberAssignmentValue()
                .setMemberEpoch(-1).setPreviousMemberEpoch(-1).setState((byte) 0)
                .setAssignedPartitions(Collections.emptyList())
                .setPartitionsPendingRevocation(Collections.emptyList()));
        record("consumer_group_current_member_assignment_tombstone", currentKey, null);

        // 16 ConsumerGroupRegularExpression
        ConsumerGroupRegularExpressionKey regexKey =
            new ConsumerGroupRegularExpressionKey().setGroupId(GROUP).setRegularExpression("^orders-.*");
        record("consumer_group_regular_expression", regexKey,
            new ConsumerGroupRegularExpressionValue()
                .setTopics(Arrays.asList("orders-1", "orders-2")).setVersion(12L).setTimestamp(1700000000456L));
        record("consumer_group_regular_expression_empty", regexKey,
            new ConsumerGroupRegularExpressionValue().setTopics(Collections.emptyList()).setVersion(-1L)
                .setTimestamp(0L));
        record("consumer_group_regular_expression_tombstone", regexKey, null);

        System.out.println("{\"kafka_version\": \"" + org.apache.kafka.common.utils.AppInfoParser.getVersion()
            + "\", \"records\": [");
        System.out.println(String.join(",\n", LINES));
        System.out.println("]}");
    }

    static void record(String name, ApiMessage key, ApiMessage value) {
        CoordinatorRecord record = value == null
            ? CoordinatorRecord.tombstone(key)
            : CoordinatorRecord.record(key, new ApiMessageAndVersion(value, (short) 0));
        byte[] keyBytes = SERDE.serializeKey(record);
        byte[] valueBytes = SERDE.serializeValue(record);
        CoordinatorRecord back = SERDE.deserialize(
            ByteBuffer.wrap(keyBytes), valueBytes == null ? null : ByteBuffer.wrap(valueBytes));
        if (!back.equals(record)) {
            throw new IllegalStateException(name + " does not read back: " + back + " != " + record);
        }
        LINES.add("  {\"name\": \"" + name + "\", \"type\": " + key.apiKey() + ", \"key\": \"" + hex(keyBytes)
            + "\", \"value\": " + (valueBytes == null ? "null" : "\"" + hex(valueBytes) + "\"") + "}");
    }

    static String hex(byte[] bytes) {
        StringBuilder out = new StringBuilder();
        for (byte b : bytes) {
            out.append(String.format("%02x", b));
        }
        return out.toString();
    }
}
