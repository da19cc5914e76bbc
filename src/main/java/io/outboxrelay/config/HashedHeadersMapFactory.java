package io.outboxrelay.config;

import java.util.Locale;
import java.util.Map;

import org.apache.camel.spi.HeadersMapFactory;
import org.springframework.util.LinkedCaseInsensitiveMap;

/**
 * Message headers in a hashed case-insensitive map (Spring's LinkedCaseInsensitiveMap, already on the classpath with
 * camel-sql) instead of Camel's default TreeMap with a case-insensitive comparator. Every event's message gets ten
 * headers that camel-kafka reads, filters and copies again: in a drain profile the default map's comparisons
 * (String.compareToIgnoreCase, TreeMap lookups) were the largest single cost in the relay, about a sixth of its
 * samples. Camel's own faster map, camel-headersmap, is not published at 4.18.0; this is the same plug-in point
 * (META-INF/services/org/apache/camel/headers-map-factory). Header names stay case-insensitive, as Camel promises.
 */
public class HashedHeadersMapFactory implements HeadersMapFactory {

    @Override
    public Map<String, Object> newMap() {
        return new LinkedCaseInsensitiveMap<>(16, Locale.ROOT);
    }

    @Override
    public Map<String, Object> newMap(Map<String, Object> map) {
        Map<String, Object> copy = new LinkedCaseInsensitiveMap<>(Math.max(16, map.size()), Locale.ROOT);
        copy.putAll(map);
        return copy;
    }

    @Override
    public boolean isInstanceOf(Map<String, Object> map) {
        return map instanceof LinkedCaseInsensitiveMap;
    }

    @Override
    public boolean isCaseInsensitive() {
        return true;
    }
}
