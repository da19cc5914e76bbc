package io.outboxrelay.console;

import java.util.Map;

/**
 * A console request answered with an HTTP error and a JSON message naming what is wrong (the parameter at fault);
 * routes/console.camel.yaml turns it into the response.
 */
public final class ConsoleRefusal extends RuntimeException {

    private final int status;

    public ConsoleRefusal(int status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    static ConsoleRefusal badParameter(String parameter, String problem) {
        return new ConsoleRefusal(400, "parameter " + parameter + ": " + problem);
    }

    public int getStatus() {
        return status;
    }

    /** The response body: {"message": "..."}. */
    public Map<String, Object> getBody() {
        return Map.of("message", getMessage());
    }

    /** Basic auth's challenge on a 401, nothing otherwise. */
    public String getChallenge() {
        return status == 401 ? "Basic realm=\"outbox console\", charset=\"UTF-8\"" : null;
    }
}
