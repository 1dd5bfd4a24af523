// KafkaProducer (idempotent, acks=all, every compression.type) and KafkaConsumer
// (group.protocol=classic, each partition.assignment.strategy) against one cluster.
// Usage: ProduceConsume <bootstrap.servers> <name prefix>
// Prints one line per check ("codec gzip produced=600 consumed=600 intact=true"); exits 1 on an
// exception.  Run by tests/interop/test_java_clients.py against Apache Kafka and Kafkette.

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class ProduceConsume {
    static final int PARTITIONS = 3;
    static final int RECORDS = 600;
    static final long DEADLINE_MS = 60_000;
    /** partition.assignment.strategy by the assignor's name (ConsumerPartitionAssignor.name()). */
    static final Map<String, String> ASSIGNORS = Map.of(
            "range", "org.apache.kafka.clients.consumer.RangeAssignor",
            "roundrobin", "org.apache.kafka.clients.consumer.RoundRobinAssignor",
            "sticky", "org.apache.kafka.clients.consumer.StickyAssignor",
            "cooperative-sticky", "org.apache.kafka.clients.consumer.CooperativeStickyAssignor");

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String prefix = args[1];
        String[] codecs = {"none", "gzip", "snappy", "lz4", "zstd"};
        String[] assignors = {"range", "roundrobin", "sticky", "cooperative-sticky"};
        List<NewTopic> topics = new ArrayList<>();
        for (String codec : codecs) topics.add(new NewTopic(prefix + "-" + codec, PARTITIONS, (short) 3));
        for (String assignor : assignors) topics.add(new NewTopic(prefix + "-" + assignor, PARTITIONS, (short) 3));
        Properties adminProps = new Properties();
        adminProps.put("bootstrap.servers", bootstrap);
        try (Admin admin = Admin.create(adminProps)) {
            admin.createTopics(topics).all().get();
        }
        for (String codec : codecs) {
            String topic = prefix + "-" + codec;
            Map<String, String> sent = produce(bootstrap, topic, codec);
            Map<String, String> read = consumeOnce(bootstrap, topic, prefix + "-read-" + codec);
            System.out.println("codec " + codec + " produced=" + sent.size() + " consumed=" + read.size()
                    + " intact=" + sent.equals(read));
        }
        // every assignor: two consumers of one group share a topic; each record reaches one of them
        for (String assignor : assignors) {
            String line = consumeInGroup(bootstrap, prefix + "-" + assignor, prefix + "-group-" + assignor, assignor);
            System.out.println("assignor " + assignor + " " + line);
        }
    }

    static Map<String, String> produce(String bootstrap, String topic, String codec) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("enable.idempotence", "true");
        p.put("acks", "all");
        p.put("compression.type", codec);
        p.put("linger.ms", "5");
        p.put("batch.size", "8192");
        p.put("request.timeout.ms", "15000");
        p.put("delivery.timeout.ms", "30000");
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        Map<String, String> sent = new HashMap<>();
        List<java.util.concurrent.Future<RecordMetadata>> acks = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            for (int i = 0; i < RECORDS; i++) {
                String key = "key-" + i;
                String value = ("value " + i + " " + codec + " ").repeat(1 + i % 7) + "é€";
                sent.put(key, value);
                acks.add(producer.send(new ProducerRecord<>(topic, key, value)));
            }
            producer.flush();
            for (var ack : acks) ack.get();
        }
        return sent;
    }

    static Properties consumerProps(String bootstrap, String group, String assignor) {
        Properties c = new Properties();
        c.put("bootstrap.servers", bootstrap);
        c.put("group.id", group);
        c.put("group.protocol", "classic");
        c.put("partition.assignment.strategy", ASSIGNORS.get(assignor));
        c.put("auto.offset.reset", "earliest");
        c.put("enable.auto.commit", "false");
        c.put("session.timeout.ms", "10000");
        c.put("heartbeat.interval.ms", "1000");
        c.put("key.deserializer", StringDeserializer.class.getName());
        c.put("value.deserializer", StringDeserializer.class.getName());
        return c;
    }

    static Map<String, String> consumeOnce(String bootstrap, String topic, String group) {
        Map<String, String> read = new HashMap<>();
        long deadline = System.currentTimeMillis() + DEADLINE_MS;
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerProps(bootstrap, group, "range"))) {
            consumer.subscribe(List.of(topic));
            while (read.size() < RECORDS && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) read.put(r.key(), r.value());
            }
            consumer.commitSync();
        }
        return read;
    }

    /** Two consumers of one group, each in its own thread: once both hold partitions the topic
     *  gets its records, and they read until every record is read (then each notes its
     *  assignment, and none leaves before both have).  The line says how many
     *  distinct records the group read, how many twice, whether each member read some, and
     *  whether their final assignments split the partitions between them. */
    static String consumeInGroup(String bootstrap, String topic, String group, String assignor) throws Exception {
        Set<String> seen = ConcurrentHashMap.newKeySet();
        AtomicInteger duplicates = new AtomicInteger();
        AtomicInteger total = new AtomicInteger();
        AtomicInteger rebalanceCommits = new AtomicInteger();
        long started = System.currentTimeMillis();
        List<TopicPartition> assigned = Collections.synchronizedList(new ArrayList<>());
        int[] counts = new int[2];
        CountDownLatch bothAssigned = new CountDownLatch(2);
        CountDownLatch bothRead = new CountDownLatch(2);  // no member leaves (a rebalance) before both are done
        long deadline = System.currentTimeMillis() + DEADLINE_MS;
        Thread[] threads = new Thread[2];
        Throwable[] failures = new Throwable[2];
        for (int m = 0; m < 2; m++) {
            final int member = m;
            threads[m] = new Thread(() -> {
                try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerProps(bootstrap, group, assignor))) {
                    consumer.subscribe(List.of(topic));
                    boolean counted = false;
                    while (total.get() < RECORDS && System.currentTimeMillis() < deadline) {
                        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                            counts[member]++;
                            total.incrementAndGet();
                            if (!seen.add(r.key())) duplicates.incrementAndGet();
                        }
                        try {
                            consumer.commitSync();
                        } catch (RebalanceInProgressException e) {
                            // as the exception says: the next poll completes the rebalance, then commit again
                            rebalanceCommits.incrementAndGet();
                            continue;
                        }
                        if (!counted && !consumer.assignment().isEmpty()) {
                            counted = true;
                            bothAssigned.countDown();
                        }
                    }
                    assigned.addAll(consumer.assignment());
                    bothRead.countDown();
                    bothRead.await(DEADLINE_MS, TimeUnit.MILLISECONDS);
                } catch (Throwable t) {
                    failures[member] = t;
                }
            });
            threads[m].start();
        }
        boolean stable = bothAssigned.await(DEADLINE_MS, TimeUnit.MILLISECONDS);
        if (stable) produce(bootstrap, topic, "none");
        for (Thread t : threads) t.join();
        for (Throwable t : failures) if (t != null) throw new RuntimeException(t);
        System.err.println("assignor " + assignor + ": " + (System.currentTimeMillis() - started) + " ms, "
                + rebalanceCommits.get() + " commits refused during a rebalance");
        return "both_assigned=" + stable + " read=" + seen.size() + " duplicates=" + duplicates.get()
                + " both_members_read=" + (counts[0] > 0 && counts[1] > 0)
                + " partitions_split=" + (new HashSet<>(assigned).size() == PARTITIONS && assigned.size() == PARTITIONS);
    }
}
