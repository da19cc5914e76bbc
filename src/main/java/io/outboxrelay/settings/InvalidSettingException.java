package io.outboxrelay.settings;

/** A setting that cannot be used; the message names the key, so one line tells the operator what to fix. */
public class InvalidSettingException extends RuntimeException {

    private final String key;

    public InvalidSettingException(String key, String value, String expectation) {
        super("invalid setting " + key + "=" + quote(value) + ": " + expectation);
        this.key = key;
    }

    public String key() {
        return key;
    }

    private static String quote(String value) {
        return value == null ? "<missing>" : "'" + value + "'";
    }
}
