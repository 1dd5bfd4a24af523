// A Kafka Streams application: lines -> words -> groupBy word (a repartition topic) -> count (a state
// store with a changelog topic) -> an output topic.
// Usage: WordCount <bootstrap.servers> <name prefix> <state dir> [at_least_once|exactly_once_v2]
// Creates the input and output topics, produces LINES lines, runs the application until the
// output topic holds the final count of every word, and prints "word count" lines sorted by word,
// then "internal <topic>" for each topic the application created (repartition and changelog).
// With exactly_once_v2 (KIP-447: one transactional producer per stream thread) it runs in two
// phases: it counts the first half of the lines, prints "phase 1 counted", waits for a line on its
// stdin (the caller kills a broker meanwhile), produces the second half and counts it; its reader
// is read_committed, and a count above the expected one (a record counted twice) never matches.
// Exits 1 when the counts are not reached within DEADLINE_MS.  Run by
// tests/interop/test_java_clients.py and test_streams_exactly_once.py against Apache Kafka and
// Kafkette.

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;

public class WordCount {
    static final int LINES = 500;
    static final long DEADLINE_MS = 120_000;
    static final String[] WORDS = {"kafka", "stream", "topic", "partition", "offset", "broker", "record", "group",
            "leader", "replica", "commit", "fetch", "produce"};

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String prefix = args[1];
        String guarantee = args.length > 3 ? args[3] : StreamsConfig.AT_LEAST_ONCE;
        boolean twoPhases = guarantee.equals(StreamsConfig.EXACTLY_ONCE_V2);
        String input = prefix + "-lines";
        String output = prefix + "-counts";
        String appId = prefix + "-wordcount";
        Properties adminProps = new Properties();
        adminProps.put("bootstrap.servers", bootstrap);
        try (Admin admin = Admin.create(adminProps)) {
            admin.createTopics(List.of(new NewTopic(input, 3, (short) 3), new NewTopic(output, 3, (short) 3)))
                    .all().get(30, TimeUnit.SECONDS);
        }
        Map<String, Long> expected = new TreeMap<>();
        produceLines(bootstrap, input, 0, twoPhases ? LINES / 2 : LINES, expected);

        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(input, Consumed.with(Serdes.String(), Serdes.String()))
                .flatMapValues(line -> Arrays.asList(line.toLowerCase().split(" ")))
                .groupBy((key, word) -> word, Grouped.with("words", Serdes.String(), Serdes.String()))
                .count(Materialized.as("counts"))
                .toStream()
                .to(output, Produced.with(Serdes.String(), Serdes.Long()));
        Properties sp = new Properties();
        sp.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
        sp.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        sp.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, guarantee);
        sp.put(StreamsConfig.STATE_DIR_CONFIG, args[2]);
        sp.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "200");
        sp.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, "0");
        sp.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, "3");
        sp.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, "1");
        sp.put(StreamsConfig.consumerPrefix("auto.offset.reset"), "earliest");
        sp.put(StreamsConfig.consumerPrefix("group.protocol"), "classic");

        Map<String, Long> counts = new TreeMap<>();
        try (KafkaStreams streams = new KafkaStreams(builder.build(), sp)) {
            streams.start();
            Properties cp = new Properties();
            cp.put("bootstrap.servers", bootstrap);
            cp.put("group.id", prefix + "-reader");
            cp.put("auto.offset.reset", "earliest");
            cp.put("isolation.level", twoPhases ? "read_committed" : "read_uncommitted");
            cp.put("key.deserializer", StringDeserializer.class.getName());
            cp.put("value.deserializer", LongDeserializer.class.getName());
            long deadline = System.currentTimeMillis() + DEADLINE_MS;
            try (KafkaConsumer<String, Long> reader = new KafkaConsumer<>(cp)) {
                reader.subscribe(List.of(output));
                if (twoPhases) {
                    readUntil(reader, counts, expected, deadline);
                    System.out.println("phase 1 counted");
                    System.out.flush();
                    new BufferedReader(new InputStreamReader(System.in)).readLine();
                    produceLines(bootstrap, input, LINES / 2, LINES, expected);
                }
                readUntil(reader, counts, expected, deadline);
            }
            streams.close(Duration.ofSeconds(30));
        }
        for (Map.Entry<String, Long> e : counts.entrySet()) System.out.println("word " + e.getKey() + " " + e.getValue());
        try (Admin admin = Admin.create(adminProps)) {
            admin.listTopics().names().get(30, TimeUnit.SECONDS).stream().filter(t -> t.startsWith(appId)).sorted()
                    .forEach(t -> System.out.println("internal " + t));
        }
        if (!counts.equals(expected)) {
            System.err.println("expected " + expected + "\nbut read " + counts);
            System.exit(1);
        }
    }

    /** Produces lines [from, to) (acks=all) and adds their words to expected. */
    static void produceLines(String bootstrap, String input, int from, int to, Map<String, Long> expected) {
        Properties pp = new Properties();
        pp.put("bootstrap.servers", bootstrap);
        pp.put("acks", "all");
        pp.put("key.serializer", StringSerializer.class.getName());
        pp.put("value.serializer", StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp)) {
            for (int i = from; i < to; i++) {
                StringBuilder line = new StringBuilder();
                for (int w = 0; w <= i % 5; w++) {
                    String word = WORDS[(i * 7 + w * 3) % WORDS.length];
                    line.append(w == 0 ? "" : " ").append(w % 2 == 0 ? word : word.toUpperCase());
                    expected.merge(word, 1L, Long::sum);
                }
                producer.send(new ProducerRecord<>(input, "line-" + i, line.toString()));
            }
            producer.flush();
        }
    }

    /** Reads the output topic until its latest counts equal expected or the deadline passes. */
    static void readUntil(KafkaConsumer<String, Long> reader, Map<String, Long> counts, Map<String, Long> expected,
            long deadline) {
        while (!counts.equals(expected) && System.currentTimeMillis() < deadline) {
            for (ConsumerRecord<String, Long> r : reader.poll(Duration.ofMillis(200))) {
                counts.merge(r.key(), r.value(), Math::max);  // counts only grow
            }
        }
    }
}
