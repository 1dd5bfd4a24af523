/*
 * Prints, as JSON, the key and value bytes (hex) of fixed __transaction_state records as Apache
 * Kafka writes them: TransactionLog.keyToBytes and TransactionLog.valueToBytes over a
 * TxnTransitMetadata, at each transaction.version level (TV_0 writes TransactionLogValue version 0,
 * TV_1 and TV_2 the flexible version 1 with its tagged fields).  Every value is read back through
 * TransactionLog.read and must carry what was written.
 *
 * Run with the peer's jars (Java 11+ runs a single source file without javac):
 *   java -cp "$HOME/.cache/kafkette/kafka-4.3.1/libs/*" tests/peers/kafka/SerializeTransactionRecords.java \
 *     > tests/unit/transaction/fixtures/transaction_log_records.json
 * tests/unit/transaction/test_transaction_log.py checks Kafkette's codec against that fixture;
 * tests/interop/test_kafka_transaction_records.py runs this program again and checks the fixture is
 * current.  The Python side builds the same records under the same names.
 */
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.coordinator.transaction.TransactionLog;
import org.apache.kafka.coordinator.transaction.TransactionMetadata;
import org.apache.kafka.coordinator.transaction.TransactionState;
import org.apache.kafka.coordinator.transaction.TxnTransitMetadata;
import org.apache.kafka.server.common.TransactionVersion;

public class SerializeTransactionRecords {
    static final String ID = "txn-\u00e9t\u00e9";
    static final List<String> LINES = new ArrayList<>();

    public static void main(String[] args) {
        HashSet<TopicPartition> none = new HashSet<>();
        HashSet<TopicPartition> one = new HashSet<>(Arrays.asList(new TopicPartition("orders", 3)));
        HashSet<TopicPartition> several = new HashSet<>(Arrays.asList(
            new TopicPartition("orders", 0), new TopicPartition("orders", 7), new TopicPartition("orders", 2),
            new TopicPartition("payments", 1), new TopicPartition("audit", 0), new TopicPartition("audit", 12)));

        for (TransactionVersion tv : TransactionVersion.values()) {
            String v = "tv" + tv.featureLevel();
            record(v + "_empty", tv, new TxnTransitMetadata(1000L, -1L, -1L, (short) 0, (short) -1, 60000,
                TransactionState.EMPTY, none, -1L, 1700000000000L, tv));
            record(v + "_ongoing_one", tv, new TxnTransitMetadata(1000L, 999L, -1L, (short) 5, (short) 4, 60000,
                TransactionState.ONGOING, one, 1700000000100L, 1700000000200L, tv));
            record(v + "_prepare_commit_several", tv, new TxnTransitMetadata(1000L, 1000L, 2000L, (short) 32767,
                (short) 32766, 900000, TransactionState.PREPARE_COMMIT, several, 1700000000100L, 1700000000300L, tv));
            record(v + "_complete_abort", tv, new TxnTransitMetadata(2000L, 1000L, -1L, (short) 0, (short) 32766,
                900000, TransactionState.COMPLETE_ABORT, none, 1700000000100L, 1700000000400L, tv));
        }
        System.out.println("{\"kafka_version\": \"" + org.apache.kafka.common.utils.AppInfoParser.getVersion()
            + "\", \"transactional_id\": \"" + ID + "\", \"key\": \"" + hex(TransactionLog.keyToBytes(ID))
            + "\", \"records\": [");
        System.out.println(String.join(",\n", LINES));
        System.out.println("]}");
    }

    static void record(String name, TransactionVersion tv, TxnTransitMetadata transit) {
        byte[] keyBytes = TransactionLog.keyToBytes(ID);
        byte[] valueBytes = TransactionLog.valueToBytes(transit, tv);
        TransactionLog.ReadResult back = TransactionLog.read(ByteBuffer.wrap(keyBytes), ByteBuffer.wrap(valueBytes));
        TransactionMetadata metadata = ((TransactionLog.TxnRecord) back).metadata();
        if (metadata.producerId() != transit.producerId() || metadata.producerEpoch() != transit.producerEpoch()
            || metadata.state() != transit.txnState() || !metadata.topicPartitions().equals(transit.topicPartitions())) {
            throw new IllegalStateException(name + " does not read back: " + metadata + " != " + transit);
        }
        LINES.add("  {\"name\": \"" + name + "\", \"value\": \"" + hex(valueBytes) + "\"}");
    }

    static String hex(byte[] bytes) {
        StringBuilder out = new StringBuilder();
        for (byte b : bytes) {
            out.append(String.format("%02x", b));
        }
        return out.toString();
    }
}
