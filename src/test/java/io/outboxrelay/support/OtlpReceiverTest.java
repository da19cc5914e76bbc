package io.outboxrelay.support;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The benchmark receiver counts a request's spans without decoding them: the same count as decoding it. */
class OtlpReceiverTest {

    @Test
    void countsEverySpanOfEveryScopeAndResource() throws Exception {
        ExportTraceServiceRequest request = ExportTraceServiceRequest.newBuilder()
                .addResourceSpans(resource("relay-a", 3, 2))
                .addResourceSpans(resource("relay-b", 0, 5))
                .build();
        assertEquals(10, OtlpReceiver.countSpans(request.toByteArray()));
        assertEquals(0, OtlpReceiver.countSpans(ExportTraceServiceRequest.getDefaultInstance().toByteArray()));
    }

    private static ResourceSpans resource(String service, int... spansPerScope) {
        ResourceSpans.Builder resource = ResourceSpans.newBuilder().setResource(Resource.newBuilder()
                .addAttributes(KeyValue.newBuilder().setKey("service.name")
                        .setValue(AnyValue.newBuilder().setStringValue(service))));
        for (int spans : spansPerScope) {
            ScopeSpans.Builder scope = ScopeSpans.newBuilder()
                    .setScope(InstrumentationScope.newBuilder().setName("io.outboxrelay"));
            for (int i = 0; i < spans; i++) {
                scope.addSpans(Span.newBuilder().setName("send orders").setTraceId(ByteString.copyFrom(new byte[16]))
                        .setSpanId(ByteString.copyFrom(new byte[8])).setKind(Span.SpanKind.SPAN_KIND_PRODUCER)
                        .addAttributes(KeyValue.newBuilder().setKey("messaging.system")
                                .setValue(AnyValue.newBuilder().setStringValue("kafka"))));
            }
            resource.addScopeSpans(scope);
        }
        return resource.build();
    }
}
