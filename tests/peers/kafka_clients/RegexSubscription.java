// KafkaConsumer with group.protocol=consumer subscribing with a SubscriptionPattern (KIP-848: the regex
// goes to the group coordinator as ConsumerGroupHeartbeat's SubscribedTopicRegex, which resolves it with
// RE2) against one cluster.
// Usage: RegexSubscription <bootstrap.servers> <name prefix>
// Creates <prefix>-orders-a (2 partitions) and <prefix>-other, subscribes to "<prefix>-orders-.*",
// reads <prefix>-orders-a's records, then creates <prefix>-orders-b (after the subscription) and reads
// its records too; the records of <prefix>-other are never read.  Prints one line per step; exits 1 on an
// exception.  Run by tests/interop/test_consumer_group_protocol.py against Apache Kafka and Kafkette.

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.SubscriptionPattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class RegexSubscription {
    static final long DEADLINE_MS = 120_000;
    static final long TIMEOUT_S = 30;
    static final int RECORDS = 50;

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String prefix = args[1];
        String a = prefix + "-orders-a";
        String b = prefix + "-orders-b";
        String other = prefix + "-other";
        Properties common = new Properties();
        common.put("bootstrap.servers", bootstrap);
        try (Admin admin = Admin.create(common)) {
            admin.createTopics(List.of(new NewTopic(a, 2, (short) 3), new NewTopic(other, 1, (short) 3)))
                .all().get(TIMEOUT_S, TimeUnit.SECONDS);
            produce(bootstrap, a);
            produce(bootstrap, other);
            Properties props = new Properties();
            props.putAll(common);
            props.put("group.id", prefix + "-group");
            props.put("group.protocol", "consumer");
            props.put("auto.offset.reset", "earliest");
            props.put("metadata.max.age.ms", "2000");
            props.put("key.deserializer", StringDeserializer.class.getName());
            props.put("value.deserializer", StringDeserializer.class.getName());
            Set<String> topicsRead = new TreeSet<>();
            Set<String> values = new HashSet<>();
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
                consumer.subscribe(new SubscriptionPattern(prefix + "-orders-.*"));
                readUntil(consumer, topicsRead, values, RECORDS);
                System.out.println("before creation topics=" + topicsRead + " read=" + values.size());
                admin.createTopics(List.of(new NewTopic(b, 1, (short) 3))).all().get(TIMEOUT_S, TimeUnit.SECONDS);
                produce(bootstrap, b);
                readUntil(consumer, topicsRead, values, 2 * RECORDS);
                System.out.println("after creation topics=" + topicsRead + " read=" + values.size());
            }
        }
    }

    static void produce(String bootstrap, String topic) throws Exception {
        Properties props = new Properties();
        props.put("bootstrap.servers", bootstrap);
        props.put("acks", "all");
        props.put("key.serializer", StringSerializer.class.getName());
        props.put("value.serializer", StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            for (int i = 0; i < RECORDS; i++) {
                producer.send(new ProducerRecord<>(topic, "k" + i, topic + ":" + i)).get(TIMEOUT_S, TimeUnit.SECONDS);
            }
        }
    }

    static void readUntil(KafkaConsumer<String, String> consumer, Set<String> topics, Set<String> values, int count) {
        long deadline = System.currentTimeMillis() + DEADLINE_MS;
        while (values.size() < count) {
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("read " + values.size() + " of " + count + " from " + topics);
            }
            for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
                topics.add(record.topic());
                values.add(record.value());
            }
        }
    }
}
