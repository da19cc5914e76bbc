package io.outboxrelay.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.GZIPInputStream;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;

/**
 * An OTLP/HTTP trace receiver (what a collector listens on at 4318): decodes each ExportTraceServiceRequest with the
 * opentelemetry-proto classes and keeps its spans (or, for benchmarks, only counts them, walking the message's
 * fields without decoding the spans). The relay is pointed at it
 * with OpenTelemetry's own environment ({@link #environment()}).
 */
public final class OtlpReceiver implements AutoCloseable {

    /** A received span, ids in lower-case hex as in a traceparent; the parent's is "" for a root span. */
    public record ReceivedSpan(String service, String traceId, String spanId, String parentSpanId, String name,
            Span.SpanKind kind, Map<String, Object> attributes, Status.StatusCode status,
            List<String> eventNames) {
    }

    private static final HexFormat HEX = HexFormat.of();

    private final HttpServer server;
    private final boolean keep;
    private final List<ReceivedSpan> spans = new CopyOnWriteArrayList<>();
    private final AtomicLong count = new AtomicLong();

    static {
        // answer at once, as a collector does: without TCP_NODELAY each response waited for the exporter's delayed
        // ACK (tens of milliseconds per export, which made the relay's span queue the bottleneck of the benchmark)
        System.setProperty("sun.net.httpserver.nodelay", "true");
    }

    private OtlpReceiver(boolean keep) {
        this.keep = keep;
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 50);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/v1/traces", this::receive);
        server.start();
    }

    /** Keeps every span it receives. */
    public static OtlpReceiver start() {
        return new OtlpReceiver(true);
    }

    /** Counts the spans it receives, keeps none (a benchmark's millions). */
    public static OtlpReceiver counting() {
        return new OtlpReceiver(false);
    }

    /** The relay's environment for this receiver: OTLP/HTTP here, every span sampled, exported within 100 ms. */
    public Map<String, String> environment(String serviceName) {
        Map<String, String> env = new HashMap<>();
        env.put("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:" + server.getAddress().getPort());
        env.put("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf");
        env.put("OTEL_SERVICE_NAME", serviceName);
        env.put("OTEL_TRACES_SAMPLER", "always_on");
        env.put("OTEL_BSP_SCHEDULE_DELAY", "100");
        return env;
    }

    public List<ReceivedSpan> spans() {
        return List.copyOf(spans);
    }

    public long count() {
        return count.get();
    }

    private void receive(HttpExchange exchange) throws IOException {
        try (exchange) {
            InputStream body = exchange.getRequestBody();
            if ("gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))) {
                body = new GZIPInputStream(body);
            }
            if (keep) {
                ExportTraceServiceRequest request = ExportTraceServiceRequest.parseFrom(body);
                for (ResourceSpans resourceSpans : request.getResourceSpansList()) {
                    String service = String.valueOf(attributes(resourceSpans.getResource().getAttributesList())
                            .get("service.name"));
                    for (ScopeSpans scopeSpans : resourceSpans.getScopeSpansList()) {
                        count.addAndGet(scopeSpans.getSpansCount());
                        scopeSpans.getSpansList().forEach(span -> spans.add(received(service, span)));
                    }
                }
            } else {
                count.addAndGet(countSpans(body.readAllBytes()));
            }
            byte[] response = ExportTraceServiceResponse.getDefaultInstance().toByteArray();
            exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, response.length);
            exchange.getResponseBody().write(response);
        }
    }

    /**
     * The spans of an ExportTraceServiceRequest, counted as a collector's receiver walks the message (request ->
     * resource_spans (1) -> scope_spans (2) -> spans (2)), without decoding each span: a benchmark's receiver shares
     * the machine with the relay it measures.
     */
    static long countSpans(byte[] request) throws IOException {
        long spans = 0;
        CodedInputStream requestFields = CodedInputStream.newInstance(request);
        for (int tag = requestFields.readTag(); tag != 0; tag = requestFields.readTag()) {
            if (WireFormat.getTagFieldNumber(tag) != 1) {
                requestFields.skipField(tag);
                continue;
            }
            CodedInputStream resourceFields = requestFields.readBytes().newCodedInput();
            for (int r = resourceFields.readTag(); r != 0; r = resourceFields.readTag()) {
                if (WireFormat.getTagFieldNumber(r) != 2) {
                    resourceFields.skipField(r);
                    continue;
                }
                CodedInputStream scopeFields = resourceFields.readBytes().newCodedInput();
                for (int s = scopeFields.readTag(); s != 0; s = scopeFields.readTag()) {
                    if (WireFormat.getTagFieldNumber(s) == 2) {
                        spans++;
                    }
                    scopeFields.skipField(s);
                }
            }
        }
        return spans;
    }

    private static ReceivedSpan received(String service, Span span) {
        return new ReceivedSpan(service, HEX.formatHex(span.getTraceId().toByteArray()),
                HEX.formatHex(span.getSpanId().toByteArray()), HEX.formatHex(span.getParentSpanId().toByteArray()),
                span.getName(), span.getKind(), attributes(span.getAttributesList()), span.getStatus().getCode(),
                span.getEventsList().stream().map(Span.Event::getName).toList());
    }

    private static Map<String, Object> attributes(List<KeyValue> keyValues) {
        Map<String, Object> attributes = new HashMap<>();
        for (KeyValue keyValue : keyValues) {
            AnyValue value = keyValue.getValue();
            attributes.put(keyValue.getKey(), switch (value.getValueCase()) {
                case STRING_VALUE -> value.getStringValue();
                case BOOL_VALUE -> value.getBoolValue();
                case INT_VALUE -> value.getIntValue();
                case DOUBLE_VALUE -> value.getDoubleValue();
                default -> value.toString();
            });
        }
        return attributes;
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
