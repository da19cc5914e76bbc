package io.outboxrelay.failure;

import io.outboxrelay.publish.UnpublishableEventException;
import org.apache.camel.Exchange;

/** Describes why a publish attempt failed, for the row's last_error, and whether retrying could ever help. */
public class FailureDescription {

    public static final String ERROR = "outboxError";
    public static final String UNPUBLISHABLE = "outboxUnpublishable";

    /** last_error is for people reading the table: long stack-like messages are cut. */
    private static final int MAX_LENGTH = 2000;

    public void describe(Exchange exchange) {
        Throwable cause = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        String text = cause == null ? "unknown failure" : cause.getClass().getName() + ": " + cause.getMessage();
        exchange.setProperty(ERROR, text.length() > MAX_LENGTH ? text.substring(0, MAX_LENGTH) : text);
        exchange.setProperty(UNPUBLISHABLE, cause instanceof UnpublishableEventException);
    }
}
