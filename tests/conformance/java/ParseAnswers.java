import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ResponseHeader;

/**
 * Parses recorded Kafka-protocol answers with Apache Kafka's own classes (kafka-clients) and
 * writes them back.
 *
 * <p>Reads JSON lines (one recorded pair each: target, scenario, seq, api_key, api_version,
 * response = the base64 of the response frame without its length prefix, header included) from
 * the files named on the command line, and prints one JSON line per pair: the pair's identity,
 * {@code ok}, {@code error} (why it failed: the response did not parse with
 * {@code AbstractResponse.parseResponse}, bytes were left over, the re-serialization by
 * {@code MessageUtil.toByteBufferAccessor} is not byte-identical, a Fetch partition carries a
 * null record set, which Kafka's broker never sends, or a record batch failed
 * {@code RecordBatch.ensureValid}), {@code parsed} (the structure by the message's generated
 * {@code *JsonConverter}, record sets as their size) and {@code batches} (the record batches of
 * a Fetch answer's partitions, parsed by {@code MemoryRecords}).
 */
public final class ParseAnswers {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private ParseAnswers() {
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        for (String file : args) {
            try (BufferedReader reader = Files.newBufferedReader(Path.of(file), StandardCharsets.UTF_8)) {
                String line;
                while ((line = reader.readLine()) != null) {
                    if (!line.isBlank()) {
                        out.println(MAPPER.writeValueAsString(check(MAPPER.readTree(line))));
                    }
                }
            }
        }
        out.flush();
    }

    static ObjectNode check(JsonNode pair) {
        ObjectNode result = MAPPER.createObjectNode();
        for (String name : new String[] {"target", "scenario", "seq", "conn", "api_key", "api_version"}) {
            result.set(name, pair.get(name));
        }
        try {
            ApiKeys api = ApiKeys.forId(pair.get("api_key").asInt());
            short version = (short) pair.get("api_version").asInt();
            byte[] frame = Base64.getDecoder().decode(pair.get("response").asText());
            ByteBuffer buffer = ByteBuffer.wrap(frame);
            ResponseHeader.parse(buffer, api.responseHeaderVersion(version));
            byte[] body = Arrays.copyOfRange(frame, buffer.position(), frame.length);
            ByteBufferAccessor readable = new ByteBufferAccessor(ByteBuffer.wrap(body));
            AbstractResponse response = AbstractResponse.parseResponse(api, readable, version);
            ApiMessage data = response.data();
            result.set("parsed", toJson(data, version));
            if (readable.remaining() > 0) {
                return fail(result, readable.remaining() + " bytes left after parsing " + api + " v" + version);
            }
            ByteBuffer again = MessageUtil.toByteBufferAccessor(data, version).buffer();
            byte[] rewritten = new byte[again.remaining()];
            again.get(rewritten);
            if (!Arrays.equals(body, rewritten)) {
                return fail(result, "re-serialized " + api + " v" + version + " differs: " + body.length
                        + " bytes received, " + rewritten.length + " written back, first difference at byte "
                        + Arrays.mismatch(body, rewritten));
            }
            if (data instanceof FetchResponseData fetch) {
                String nullRecords = nullRecordSet(fetch);
                if (nullRecords != null) {
                    return fail(result, nullRecords);
                }
                result.set("batches", fetchBatches(fetch));
            }
            result.put("ok", true);
        } catch (Exception | AssertionError exc) {
            return fail(result, exc.getClass().getSimpleName() + ": " + exc.getMessage());
        }
        return result;
    }

    static ObjectNode fail(ObjectNode result, String why) {
        result.put("ok", false);
        result.put("error", why);
        return result;
    }

    /** The message as its generated {@code <Message>JsonConverter} writes it (records as their size). */
    static JsonNode toJson(ApiMessage data, short version) throws Exception {
        Class<?> converter = Class.forName(data.getClass().getName() + "JsonConverter");
        Method write = converter.getMethod("write", data.getClass(), short.class, boolean.class);
        return (JsonNode) write.invoke(null, data, version, false);
    }

    /**
     * The first partition of a Fetch answer whose record set is null, said as a failure, or null.
     * The schema allows it, but Kafka's broker never sends one (a partition with nothing to give
     * carries {@code MemoryRecords.EMPTY}) and librdkafka rejects the whole response for it.
     */
    static String nullRecordSet(FetchResponseData fetch) {
        for (FetchResponseData.FetchableTopicResponse topic : fetch.responses()) {
            for (FetchResponseData.PartitionData partition : topic.partitions()) {
                if (partition.records() == null) {
                    return "null record set for " + topic.topic() + "-" + partition.partitionIndex()
                            + " (Kafka's broker answers MemoryRecords.EMPTY; librdkafka rejects the response)";
                }
            }
        }
        return null;
    }

    static ArrayNode fetchBatches(FetchResponseData fetch) {
        ArrayNode all = MAPPER.createArrayNode();
        for (FetchResponseData.FetchableTopicResponse topic : fetch.responses()) {
            for (FetchResponseData.PartitionData partition : topic.partitions()) {
                BaseRecords records = partition.records();
                if (!(records instanceof MemoryRecords memory)) {
                    continue;
                }
                for (RecordBatch batch : memory.batches()) {
                    batch.ensureValid();
                    ObjectNode b = all.addObject();
                    b.put("topic", topic.topic());
                    b.put("topic_id", topic.topicId().toString());
                    b.put("partition", partition.partitionIndex());
                    b.put("base_offset", batch.baseOffset());
                    b.put("last_offset", batch.lastOffset());
                    b.put("magic", batch.magic());
                    b.put("compression", batch.compressionType().name);
                    b.put("timestamp_type", batch.timestampType().name);
                    b.put("max_timestamp", batch.maxTimestamp());
                    b.put("producer_id", batch.producerId());
                    b.put("producer_epoch", batch.producerEpoch());
                    b.put("base_sequence", batch.baseSequence());
                    b.put("transactional", batch.isTransactional());
                    b.put("control", batch.isControlBatch());
                    b.put("partition_leader_epoch", batch.partitionLeaderEpoch());
                    ArrayNode rs = b.putArray("records");
                    for (Record record : batch) {
                        record.ensureValid();
                        ObjectNode r = rs.addObject();
                        r.put("offset", record.offset());
                        r.put("timestamp", record.timestamp());
                        r.put("key", record.hasKey() ? hex(record.key()) : null);
                        r.put("value", record.hasValue() ? hex(record.value()) : null);
                        ArrayNode hs = r.putArray("headers");
                        for (Header h : record.headers()) {
                            hs.addObject().put("key", h.key()).put("value", h.value() == null ? null : hex(ByteBuffer.wrap(h.value())));
                        }
                    }
                }
            }
        }
        return all;
    }

    static String hex(ByteBuffer buffer) {
        StringBuilder s = new StringBuilder();
        ByteBuffer b = buffer.duplicate();
        while (b.hasRemaining()) {
            s.append(String.format("%02x", b.get()));
        }
        return s.toString();
    }
}
