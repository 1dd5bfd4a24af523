import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;

import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * Kafka's whole-request error answers, the judge of Kafkette's {@code kafka_error_responses}: for
 * each line {@code <api key> <version> <error code> <request body in hex>} of the file named by the
 * first argument, the request is parsed with {@code AbstractRequest.parseRequest}, answered with
 * {@code getErrorResponse(0, Errors.forCode(code).exception())} and the response body, written at
 * that version ({@code MessageUtil.toByteBufferAccessor}), printed in hex, one line per input line:
 * {@code OK <hex>}, or {@code ERR <exception>} when Kafka refuses the request or the answer.
 */
public class PrintErrorResponses {
    public static void main(String[] args) throws IOException {
        HexFormat hex = HexFormat.of();
        StringBuilder out = new StringBuilder();
        for (String line : Files.readAllLines(Path.of(args[0]))) {
            if (line.isBlank()) {
                continue;
            }
            String[] parts = line.trim().split(" ", -1);
            try {
                ApiKeys api = ApiKeys.forId(Short.parseShort(parts[0]));
                short version = Short.parseShort(parts[1]);
                Errors error = Errors.forCode(Short.parseShort(parts[2]));
                byte[] body = parts.length > 3 ? hex.parseHex(parts[3]) : new byte[0];
                AbstractRequest request =
                    AbstractRequest.parseRequest(api, version, new ByteBufferAccessor(ByteBuffer.wrap(body))).request;
                AbstractResponse response = request.getErrorResponse(0, error.exception());
                ByteBuffer written = MessageUtil.toByteBufferAccessor(response.data(), version).buffer();
                byte[] bytes = new byte[written.remaining()];
                written.get(bytes);
                out.append("OK ").append(hex.formatHex(bytes)).append('\n');
            } catch (RuntimeException e) {
                out.append("ERR ").append(e.toString().replace('\n', ' ')).append('\n');
            }
        }
        System.out.print(out);
    }
}
