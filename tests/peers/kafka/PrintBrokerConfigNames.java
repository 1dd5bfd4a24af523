/*
 * Prints the name of every broker configuration Apache Kafka defines, one per line, sorted:
 * kafka.server.KafkaConfig.configDef(), the ConfigDef the broker validates server.properties
 * against and the one Kafka's "Broker Configs" documentation table is generated from
 * (AbstractKafkaConfig.CONFIG_DEF: ServerConfigs, KRaftConfigs, QuorumConfig, SocketServerConfigs,
 * ReplicationConfigs, the group, share and transaction coordinators', LogConfig's server side,
 * CleanerConfig, RemoteLogManagerConfig, MetricConfigs, QuotaConfig, BrokerSecurityConfigs, ...
 * merged into one).
 *
 * Run with the peer's jars (Java 11+ runs a single source file without javac):
 *   java -cp "$HOME/.cache/kafkette/kafka-4.3.1/libs/*" tests/peers/kafka/PrintBrokerConfigNames.java
 * tests/interop/test_kafka_broker_config_names.py runs it and compares with
 * kafkette.broker.kafka_broker_config_names.
 */
public class PrintBrokerConfigNames {
    public static void main(String[] args) {
        new java.util.TreeSet<>(kafka.server.KafkaConfig.configDef().names()).forEach(System.out::println);
    }
}
