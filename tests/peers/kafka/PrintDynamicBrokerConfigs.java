/*
 * Prints what Apache Kafka's DynamicBrokerConfig knows of each broker configuration, one line per
 * configuration, sorted by name: "<name> <type> <update mode>", where the type is the ConfigDef type
 * (INT, LONG, LIST, ...) of kafka.server.KafkaConfig.configDef() and
 * DynamicConfig.Broker.configKeys() (the dynamic-only quota configs: leader.replication.throttled.rate, ...) and the update mode is
 * DynamicBrokerConfig.dynamicConfigUpdateModes()'s "per-broker" or "cluster-wide", "read-only" for
 * the rest; then one line "security <name>" per DynamicBrokerConfig.DYNAMIC_SECURITY_CONFIGS entry
 * (configs a broker takes at run time only behind a listener prefix).
 *
 * Run with the peer's jars (Java 11+ runs a single source file without javac):
 *   java -cp "$HOME/.cache/kafkette/kafka-4.3.1/libs/*" tests/peers/kafka/PrintDynamicBrokerConfigs.java
 * Its output is the table of kafkette.broker.kafka_dynamic_broker_configs.
 */
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.server.config.DynamicBrokerConfig;
import org.apache.kafka.server.config.DynamicConfig;

public class PrintDynamicBrokerConfigs {
    public static void main(String[] args) {
        Map<String, String> modes = DynamicBrokerConfig.dynamicConfigUpdateModes();
        Map<String, ConfigDef.ConfigKey> keys = new TreeMap<>(kafka.server.KafkaConfig.configDef().configKeys());
        keys.putAll(DynamicConfig.Broker.configKeys());
        keys.forEach((name, key) ->
            System.out.println(name + " " + key.type + " " + modes.getOrDefault(name, "read-only")));
        new TreeSet<>(DynamicBrokerConfig.DYNAMIC_SECURITY_CONFIGS).forEach(name -> System.out.println("security " + name));
    }
}
