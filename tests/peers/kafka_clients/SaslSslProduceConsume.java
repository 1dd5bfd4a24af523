// KafkaProducer then KafkaConsumer over SASL_SSL (a PEM trust store) logging in with one SASL
// mechanism (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512), in one JVM.
// Usage: SaslSslProduceConsume <bootstrap.servers> <CA file> <mechanism> <user> <password> <topic> <records>
// Prints "produced=<n> consumed=<n> intact=<true|false>"; exits 1 on an exception.  Run by
// tests/interop/test_sasl_ssl.py against Apache Kafka and Kafkette.

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class SaslSslProduceConsume {
    public static void main(String[] args) throws Exception {
        String bootstrap = args[0], ca = args[1], mechanism = args[2], user = args[3], password = args[4];
        String topic = args[5];
        int records = Integer.parseInt(args[6]);
        String module = mechanism.equals("PLAIN")
                ? "org.apache.kafka.common.security.plain.PlainLoginModule"
                : "org.apache.kafka.common.security.scram.ScramLoginModule";
        Properties common = new Properties();
        common.put("bootstrap.servers", bootstrap);
        common.put("security.protocol", "SASL_SSL");
        common.put("ssl.truststore.type", "PEM");
        common.put("ssl.truststore.location", ca);
        common.put("sasl.mechanism", mechanism);
        common.put("sasl.jaas.config", module + " required username=\"" + user + "\" password=\"" + password + "\";");
        Properties p = new Properties();
        p.putAll(common);
        p.put("acks", "all");
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        Set<String> sent = new HashSet<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            for (int i = 0; i < records; i++) {
                String value = "java-" + mechanism + "-" + i;
                sent.add(value);
                producer.send(new ProducerRecord<>(topic, value)).get();
            }
        }
        Properties c = new Properties();
        c.putAll(common);
        c.put("group.id", topic + "-group");
        c.put("auto.offset.reset", "earliest");
        c.put("key.deserializer", StringDeserializer.class.getName());
        c.put("value.deserializer", StringDeserializer.class.getName());
        Set<String> read = new HashSet<>();
        long deadline = System.currentTimeMillis() + 30_000;
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c)) {
            consumer.subscribe(List.of(topic));
            while (read.size() < records && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) read.add(r.value());
            }
        }
        System.out.println("produced=" + sent.size() + " consumed=" + read.size() + " intact=" + sent.equals(read));
    }
}
