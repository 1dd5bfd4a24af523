/*
 * Prints what Apache Kafka's broker lists, in a DescribeConfigs of itself, for each broker
 * configuration nobody set: one line per non-internal key of kafka.server.KafkaConfig.configDef(),
 * sorted by name, "<name>\t<default>", the default as ConfigDef.convertToString renders it
 * (lists joined by commas, classes by name), "<null>" for no default or a PASSWORD (sensitive:
 * Kafka answers a null value).
 *
 * Run with the peer's jars (Java 11+ runs a single source file without javac):
 *   java -cp "$HOME/.cache/kafkette/kafka-4.3.1/libs/*" tests/peers/kafka/PrintBrokerConfigDefaults.java
 * Its output is the table of kafkette.broker.kafka_broker_config_defaults.
 */
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.config.ConfigDef;

public class PrintBrokerConfigDefaults {
    public static void main(String[] args) {
        Map<String, ConfigDef.ConfigKey> keys = new TreeMap<>(kafka.server.KafkaConfig.configDef().configKeys());
        keys.forEach((name, key) -> {
            if (key.internalConfig) return;
            String rendered = null;
            if (key.hasDefault() && key.type != ConfigDef.Type.PASSWORD && key.defaultValue != null)
                rendered = ConfigDef.convertToString(key.defaultValue, key.type);
            System.out.println(name + "\t" + (rendered == null ? "<null>" : rendered));
        });
    }
}
