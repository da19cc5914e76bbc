package io.outboxrelay.config;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.camel.spi.HeadersMapFactory;
import org.springframework.util.LinkedCaseInsensitiveMap;

/**
 * Message headers in a hashed case-insensitive map (Spring's LinkedCaseInsensitiveMap, already on the classpath with
 * camel-sql) instead of Camel's default TreeMap with a case-insensitive comparator. Every event's message gets ten
 * headers that camel-kafka reads, filters and copies again: in a drain profile the default map's comparisons
 * (String.compareToIgnoreCase, TreeMap lookups) were the largest single cost in the relay, about a sixth of its
 * samples. Camel's own faster map, camel-headersmap, is not published at 4.18.0; this is the same plug-in point
 * (META-INF/services/org/apache/camel/headers-map-factory). Header names stay case-insensitive, as Camel promises.
 * <p>
 * The map keys each name by its lower-case form. Spring's map makes that form anew at every get, put and remove (a
 * new String, whose hash is computed again each time): at 32 writers on MariaDB that was 12% of the relay's CPU
 * (docs/BENCHMARKS.md). The names are few and mostly constants (CloudEvents', camel-kafka's), so their lower-case forms
 * are kept, each made once, with its hash; about {@link #CACHED_NAMES} of them (threads adding at once may each add one
 * more), so that events' own header names, which are anything, cannot grow the cache without bound (names beyond it
 * are lowered as before).
 */
public class HashedHeadersMapFactory implements HeadersMapFactory {

    /** Lower-case forms kept (a relay sees a few dozen names). */
    static final int CACHED_NAMES = 1024;

    private static final Map<String, String> LOWER_CASE_NAMES = new ConcurrentHashMap<>();

    @Override
    public Map<String, Object> newMap() {
        return new HeadersMap(16);
    }

    @Override
    public Map<String, Object> newMap(Map<String, Object> map) {
        Map<String, Object> copy = new HeadersMap(Math.max(16, map.size()));
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

    /** The lower-case form of a header name, kept while there is room. */
    static String lowerCase(String name) {
        String lower = LOWER_CASE_NAMES.get(name);
        if (lower == null) {
            lower = name.toLowerCase(Locale.ROOT);
            if (LOWER_CASE_NAMES.size() < CACHED_NAMES) {
                LOWER_CASE_NAMES.putIfAbsent(name, lower);
            }
        }
        return lower;
    }

    static int cachedNames() {
        return LOWER_CASE_NAMES.size();
    }

    private static final class HeadersMap extends LinkedCaseInsensitiveMap<Object> {

        private static final long serialVersionUID = 1L;

        HeadersMap(int capacity) {
            super(capacity, Locale.ROOT);
        }

        @Override
        protected String convertKey(String key) {
            return lowerCase(key);
        }
    }
}
