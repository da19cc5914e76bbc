package io.outboxrelay.console;

import java.util.Map;

import org.apache.camel.spi.annotations.DevConsole;
import org.apache.camel.support.console.AbstractDevConsole;
import org.apache.camel.util.json.JsonObject;

/**
 * The outbox in Camel's developer consoles (camel-console): the console's summary, so Camel's tooling and the
 * management server's /q/dev/outbox show the backlog, failures, partitions and instances too.
 */
@DevConsole(name = "outbox", displayName = "Outbox", description = "The outbox: backlog, failures, partitions")
public final class OutboxDevConsole extends AbstractDevConsole {

    private final OutboxSummary summary;

    OutboxDevConsole(OutboxSummary summary) {
        super("camel", "outbox", "Outbox", "The outbox: backlog, failures, partitions");
        this.summary = summary;
    }

    @Override
    protected String doCallText(Map<String, Object> options) {
        return doCallJson(options).toJson();
    }

    @Override
    protected JsonObject doCallJson(Map<String, Object> options) {
        JsonObject json = new JsonObject();
        try {
            json.putAll(summary.summary());
        } catch (Exception e) {
            json.put("error", e.getMessage());
        }
        return json;
    }
}
