// Admin against one cluster: describe (cluster, topics, configs, consumer groups), alter
// (partitions, topic configs, consumer group offsets), list offsets, delete records, elect leaders.
// Usage: AdminCalls <bootstrap.servers> <name prefix>
// Prints one line per call, "<call> <what Kafka answered>" or "<call> ERROR <exception class>:
// <message>", so that the lines of Apache Kafka and Kafkette can be compared one by one.  Run by
// tests/interop/test_java_clients.py.

import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringSerializer;

public class AdminCalls {
    static final long TIMEOUT_S = 30;

    interface Call { String run() throws Exception; }

    static void call(String name, Call call) {
        String outcome;
        try {
            outcome = call.run();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            outcome = "ERROR " + cause.getClass().getSimpleName() + ": " + cause.getMessage();
        } catch (Exception e) {
            outcome = "ERROR " + e.getClass().getSimpleName() + ": " + e.getMessage();
        }
        System.out.println(name + " " + outcome);
        System.out.flush();
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String topic = args[1] + "-admin";
        String group = args[1] + "-admin-group";
        Properties props = new Properties();
        props.put("bootstrap.servers", bootstrap);
        props.put("default.api.timeout.ms", "30000");
        try (Admin admin = Admin.create(props)) {
            call("describeCluster", () -> "nodes=" + admin.describeCluster().nodes().get(TIMEOUT_S, TimeUnit.SECONDS).size()
                    + " controller_known=" + (admin.describeCluster().controller().get(TIMEOUT_S, TimeUnit.SECONDS) != null));
            call("createTopics", () -> {
                admin.createTopics(List.of(new NewTopic(topic, 2, (short) 3))).all().get(TIMEOUT_S, TimeUnit.SECONDS);
                return "created";
            });
            waitForLeaders(admin, topic, 2);
            call("describeTopics", () -> {
                TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(TIMEOUT_S, TimeUnit.SECONDS).get(topic);
                return "partitions=" + d.partitions().size() + " replicas=" + d.partitions().get(0).replicas().size()
                        + " isr=" + d.partitions().get(0).isr().size() + " internal=" + d.isInternal();
            });
            call("listTopics", () -> "listed=" + admin.listTopics().names().get(TIMEOUT_S, TimeUnit.SECONDS).contains(topic));
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            call("incrementalAlterConfigs", () -> {
                admin.incrementalAlterConfigs(Map.of(resource, List.of(
                        new AlterConfigOp(new ConfigEntry("retention.ms", "3600000"), AlterConfigOp.OpType.SET))))
                        .all().get(TIMEOUT_S, TimeUnit.SECONDS);
                return "altered";
            });
            call("describeConfigs", () -> {
                // a broker applies the change when the metadata log reaches it: ask until it shows
                long deadline = System.currentTimeMillis() + TIMEOUT_S * 1000;
                Config config = admin.describeConfigs(List.of(resource)).all().get(TIMEOUT_S, TimeUnit.SECONDS).get(resource);
                while (!"3600000".equals(config.get("retention.ms").value()) && System.currentTimeMillis() < deadline) {
                    Thread.sleep(100);
                    config = admin.describeConfigs(List.of(resource)).all().get(TIMEOUT_S, TimeUnit.SECONDS).get(resource);
                }
                ConfigEntry retention = config.get("retention.ms");
                ConfigEntry cleanup = config.get("cleanup.policy");
                return "retention.ms=" + (retention == null ? null : retention.value() + "/" + retention.source())
                        + " cleanup.policy=" + (cleanup == null ? null : cleanup.value() + "/" + cleanup.source());
            });
            call("createPartitions", () -> {
                admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(3))).all().get(TIMEOUT_S, TimeUnit.SECONDS);
                waitForLeaders(admin, topic, 3);
                return "partitions=" + admin.describeTopics(List.of(topic)).allTopicNames().get(TIMEOUT_S, TimeUnit.SECONDS)
                        .get(topic).partitions().size();
            });
            TopicPartition p0 = new TopicPartition(topic, 0);
            long firstTimestamp = produce(bootstrap, topic, 10);
            call("listOffsets", () -> {
                long earliest = admin.listOffsets(Map.of(p0, OffsetSpec.earliest())).all().get(TIMEOUT_S, TimeUnit.SECONDS).get(p0).offset();
                long latest = admin.listOffsets(Map.of(p0, OffsetSpec.latest())).all().get(TIMEOUT_S, TimeUnit.SECONDS).get(p0).offset();
                long maxTs = admin.listOffsets(Map.of(p0, OffsetSpec.maxTimestamp())).all().get(TIMEOUT_S, TimeUnit.SECONDS).get(p0).offset();
                long byTime = admin.listOffsets(Map.of(p0, OffsetSpec.forTimestamp(firstTimestamp + 5))).all().get(TIMEOUT_S, TimeUnit.SECONDS).get(p0).offset();
                return "earliest=" + earliest + " latest=" + latest + " max_timestamp=" + maxTs + " for_timestamp_5=" + byTime;
            });
            call("deleteRecords", () -> {
                admin.deleteRecords(Map.of(p0, RecordsToDelete.beforeOffset(4))).all().get(TIMEOUT_S, TimeUnit.SECONDS);
                long earliest = admin.listOffsets(Map.of(p0, OffsetSpec.earliest())).all().get(TIMEOUT_S, TimeUnit.SECONDS).get(p0).offset();
                return "earliest_after=" + earliest;
            });
            call("deleteRecordsLowWatermark", () -> "low_watermark=" + admin.deleteRecords(Map.of(p0, RecordsToDelete.beforeOffset(6)))
                    .lowWatermarks().get(p0).get(TIMEOUT_S, TimeUnit.SECONDS).lowWatermark());
            call("electLeaders", () -> {
                Map<TopicPartition, java.util.Optional<Throwable>> result = admin.electLeaders(ElectionType.PREFERRED, Set.of(p0))
                        .partitions().get(TIMEOUT_S, TimeUnit.SECONDS);
                return result.get(p0).map(t -> t.getClass().getSimpleName()).orElse("elected");
            });
            call("alterConsumerGroupOffsets", () -> {
                admin.alterConsumerGroupOffsets(group, Map.of(p0, new OffsetAndMetadata(7, "from AdminCalls"),
                                new TopicPartition(topic, 1), new OffsetAndMetadata(0)))
                        .all().get(TIMEOUT_S, TimeUnit.SECONDS);
                return "altered";
            });
            call("listConsumerGroupOffsets", () -> {
                OffsetAndMetadata o = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                        .get(TIMEOUT_S, TimeUnit.SECONDS).get(p0);
                return "offset=" + o.offset() + " metadata=" + o.metadata();
            });
            call("describeConsumerGroups", () -> {
                var d = admin.describeConsumerGroups(List.of(group)).all().get(TIMEOUT_S, TimeUnit.SECONDS).get(group);
                return "state=" + d.groupState() + " members=" + d.members().size();
            });
            call("listGroups", () -> "listed=" + admin.listGroups().all().get(TIMEOUT_S, TimeUnit.SECONDS).stream()
                    .anyMatch(g -> g.groupId().equals(group)));
            call("deleteConsumerGroupOffsets", () -> {
                // every offset of the group goes: the group, Empty, still exists for deleteConsumerGroups
                admin.deleteConsumerGroupOffsets(group, Set.of(p0, new TopicPartition(topic, 1))).all()
                        .get(TIMEOUT_S, TimeUnit.SECONDS);
                return "offsets_left=" + admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                        .get(TIMEOUT_S, TimeUnit.SECONDS).size();
            });
            call("deleteConsumerGroups", () -> {
                admin.deleteConsumerGroups(List.of(group)).all().get(TIMEOUT_S, TimeUnit.SECONDS);
                return "deleted";
            });
            call("deleteTopics", () -> {
                admin.deleteTopics(List.of(topic)).all().get(TIMEOUT_S, TimeUnit.SECONDS);
                return "deleted";
            });
        }
    }

    static void waitForLeaders(Admin admin, String topic, int partitions) throws Exception {
        long deadline = System.currentTimeMillis() + TIMEOUT_S * 1000;
        while (System.currentTimeMillis() < deadline) {
            try {
                TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(TIMEOUT_S, TimeUnit.SECONDS).get(topic);
                if (d.partitions().size() == partitions && d.partitions().stream().allMatch(p -> p.leader() != null)) return;
            } catch (ExecutionException e) {
                // not known everywhere yet
            }
            Thread.sleep(100);
        }
    }

    /**
     * Produces {@code count} records to partition 0 with timestamps first, first + 1, ... ms, where first is
     * now: recent enough that the topic's retention.ms of one hour cannot delete them while the calls run
     * (Kafka's retention check would drop records stamped near the epoch at its next pass).
     *
     * @return the first record's timestamp, ms since the epoch
     */
    static long produce(String bootstrap, String topic, int count) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("acks", "all");
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        long first = System.currentTimeMillis();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, 0, first + i, "k" + i, "v" + i)).get(TIMEOUT_S, TimeUnit.SECONDS);
            }
        }
        return first;
    }
}
