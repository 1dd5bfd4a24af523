// KafkaConsumer with group.protocol=consumer (KIP-848: ConsumerGroupHeartbeat, the server-side
// assignor, OffsetCommit v10 by topic id) and Admin.describeConsumerGroups against one cluster.
// Usage: ConsumerProtocol <bootstrap.servers> <name prefix>
// One member reads a 4-partition topic (commitSync after each batch), a second joins and takes
// partitions (never one held by both, no record read twice), the group is described, the second
// closes (it leaves), new records are read by a restarted member from the commits, and the empty
// group is described.  Prints one line per step; exits 1 on an exception.  Run by
// tests/interop/test_consumer_group_protocol.py against Apache Kafka and Kafkette.

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class ConsumerProtocol {
    static final int PARTITIONS = 4;
    static final long DEADLINE_MS = 120_000;
    static final long TIMEOUT_S = 30;

    final String bootstrap;
    final String topic;
    final String group;
    final Map<String, KafkaConsumer<String, String>> members = new LinkedHashMap<>();
    final Map<Integer, String> held = new HashMap<>();
    final Map<String, String> read = new HashMap<>();
    int duplicates = 0;
    int overlaps = 0;

    ConsumerProtocol(String bootstrap, String prefix) {
        this.bootstrap = bootstrap;
        this.topic = prefix + "-topic";
        this.group = prefix + "-group";
    }

    public static void main(String[] args) throws Exception {
        new ConsumerProtocol(args[0], args[1]).run();
    }

    void run() throws Exception {
        Properties adminProps = new Properties();
        adminProps.put("bootstrap.servers", bootstrap);
        try (Admin admin = Admin.create(adminProps)) {
            admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 3))).all().get(TIMEOUT_S, TimeUnit.SECONDS);
            produce("first", 400);

            add("one");
            pollUntil(() -> assigned("one").size() == PARTITIONS && read.size() == 400, "one member reading 400");
            System.out.println("one member assigned=" + assigned("one").size() + " read=" + read.size()
                    + " duplicates=" + duplicates);
            ConsumerGroupDescription alone = describeUntil(admin, d -> d.groupState() == GroupState.STABLE && d.members().size() == 1);
            System.out.println("describe type=" + alone.type().name() + " state=" + alone.groupState().name()
                    + " members=" + alone.members().size() + " assigned=" + assignedCount(alone)
                    + " assignor=" + alone.partitionAssignor());

            add("two");
            produce("second", 400);
            pollUntil(() -> !assigned("one").isEmpty() && !assigned("two").isEmpty() && read.size() == 800,
                    "two members splitting and reading 800");
            Set<Integer> union = new TreeSet<>(assigned("one"));
            union.addAll(assigned("two"));
            boolean split = union.size() == PARTITIONS
                    && assigned("one").size() + assigned("two").size() == PARTITIONS;
            System.out.println("two members split=" + split + " read=" + (read.size() - 400) + " duplicates="
                    + duplicates + " overlaps=" + overlaps);
            ConsumerGroupDescription two = describeUntil(admin, d -> d.groupState() == GroupState.STABLE && d.members().size() == 2);
            int target = 0;
            boolean epochs = true;
            for (MemberDescription m : two.members()) {
                target += m.targetAssignment().map(a -> a.topicPartitions().size()).orElse(-100);
                epochs &= m.memberEpoch().isPresent() && m.memberEpoch().get() > 0;
            }
            System.out.println("describe type=" + two.type().name() + " state=" + two.groupState().name()
                    + " members=" + two.members().size() + " assigned=" + assignedCount(two) + " target=" + target
                    + " epochs_set=" + epochs);

            members.remove("two").close();
            pollUntil(() -> assigned("one").size() == PARTITIONS, "one member holding every partition again");
            ConsumerGroupDescription after = describeUntil(admin, d -> d.groupState() == GroupState.STABLE && d.members().size() == 1);
            System.out.println("after close members=" + after.members().size() + " assigned=" + assignedCount(after));

            members.remove("one").close();
            held.clear();
            produce("third", 100);
            int before = read.size();
            Set<String> old = new HashSet<>(read.keySet());
            add("restarted");
            pollUntil(() -> read.size() == before + 100, "the restarted member reading 100");
            long idle = System.currentTimeMillis() + 3000;
            while (System.currentTimeMillis() < idle) pollAll();
            boolean onlyNew = read.keySet().stream().filter(k -> !old.contains(k)).allMatch(k -> k.startsWith("third-"));
            System.out.println("resumed read=" + (read.size() - before) + " duplicates=" + duplicates + " only_new=" + onlyNew);
            members.remove("restarted").close();
            ConsumerGroupDescription empty = describeUntil(admin, d -> d.groupState() == GroupState.EMPTY);
            System.out.println("describe type=" + empty.type().name() + " state=" + empty.groupState().name()
                    + " members=" + empty.members().size());
        } finally {
            for (KafkaConsumer<String, String> c : members.values()) c.close();
        }
    }

    void produce(String tag, int count) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("acks", "all");
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            List<java.util.concurrent.Future<?>> acks = new ArrayList<>();
            for (int i = 0; i < count; i++) acks.add(producer.send(new ProducerRecord<>(topic, tag + "-" + i, "v" + i)));
            producer.flush();
            for (var ack : acks) ack.get();
        }
    }

    void add(String name) {
        Properties c = new Properties();
        c.put("bootstrap.servers", bootstrap);
        c.put("group.id", group);
        c.put("group.protocol", "consumer");
        c.put("client.id", name);
        c.put("auto.offset.reset", "earliest");
        c.put("enable.auto.commit", "false");
        c.put("key.deserializer", StringDeserializer.class.getName());
        c.put("value.deserializer", StringDeserializer.class.getName());
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c);
        consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                for (TopicPartition tp : partitions) {
                    String holder = held.get(tp.partition());
                    if (holder != null && !holder.equals(name)) overlaps++;
                    held.put(tp.partition(), name);
                }
            }

            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                for (TopicPartition tp : partitions) held.remove(tp.partition(), name);
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> partitions) {
                onPartitionsRevoked(partitions);
            }
        });
        members.put(name, consumer);
    }

    Set<Integer> assigned(String name) {
        Set<Integer> out = new TreeSet<>();
        for (TopicPartition tp : members.get(name).assignment()) out.add(tp.partition());
        return out;
    }

    /** One poll of each member; each batch is processed, then committed with commitSync. */
    void pollAll() {
        for (KafkaConsumer<String, String> consumer : members.values()) {
            var records = consumer.poll(Duration.ofMillis(100));
            for (ConsumerRecord<String, String> r : records) {
                if (read.put(r.key(), r.value()) != null) duplicates++;
            }
            if (!records.isEmpty()) consumer.commitSync();
        }
    }

    void pollUntil(BooleanSupplier done, String what) {
        long deadline = System.currentTimeMillis() + DEADLINE_MS;
        while (!done.getAsBoolean()) {
            if (System.currentTimeMillis() > deadline) throw new IllegalStateException(what + ": not reached, read " + read.size());
            pollAll();
        }
    }

    ConsumerGroupDescription describeUntil(Admin admin, java.util.function.Predicate<ConsumerGroupDescription> done) throws Exception {
        long deadline = System.currentTimeMillis() + DEADLINE_MS;
        while (true) {
            ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).all().get(TIMEOUT_S, TimeUnit.SECONDS).get(group);
            if (done.test(d)) return d;
            if (System.currentTimeMillis() > deadline) throw new IllegalStateException("described " + d);
            for (int i = 0; i < 5; i++) pollAll();
            if (members.isEmpty()) Thread.sleep(500);
        }
    }

    static int assignedCount(ConsumerGroupDescription d) {
        int n = 0;
        for (MemberDescription m : d.members()) n += m.assignment().topicPartitions().size();
        return n;
    }
}
