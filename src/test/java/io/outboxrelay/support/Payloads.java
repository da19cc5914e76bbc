package io.outboxrelay.support;

import java.util.Base64;
import java.util.concurrent.ThreadLocalRandom;

/** Event payloads for tests. */
public final class Payloads {

    private Payloads() {
    }

    /**
     * A JSON payload of about {@code bytes} bytes of random text: the relay compresses Kafka batches, so only data
     * that does not compress reliably exceeds a topic's max.message.bytes.
     */
    public static String tooBig(int bytes) {
        byte[] random = new byte[bytes * 3 / 4];
        ThreadLocalRandom.current().nextBytes(random);
        return "{\"blob\": \"" + Base64.getEncoder().encodeToString(random) + "\"}";
    }
}
