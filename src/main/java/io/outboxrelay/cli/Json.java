package io.outboxrelay.cli;

import java.util.List;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

/** The --json output: one compact JSON document per command, on one line; and the JSON lists the statements return. */
final class Json {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final TypeReference<List<Integer>> INTEGERS = new TypeReference<>() {
    };

    private Json() {
    }

    static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON", e);
        }
    }

    /** A JSON array of integers as a statement returns it (cli-instances.sql's partitions). */
    static List<Integer> integers(String json) {
        try {
            return MAPPER.readValue(json, INTEGERS);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("not a JSON array of integers: " + json, e);
        }
    }
}
