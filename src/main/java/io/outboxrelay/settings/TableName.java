package io.outboxrelay.settings;

import java.util.regex.Pattern;

/**
 * The outbox table's name, optionally schema-qualified. It is spliced into SQL text (identifiers cannot be bound as
 * parameters), so only plain unquoted PostgreSQL identifiers are accepted.
 */
public record TableName(String schema, String table) {

    private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

    public static TableName parse(String key, String value) {
        String[] parts = value == null ? new String[0] : value.split("\\.", -1);
        if (parts.length < 1 || parts.length > 2) {
            throw new InvalidSettingException(key, value, "expected [schema.]table");
        }
        for (String part : parts) {
            if (!IDENTIFIER.matcher(part).matches()) {
                throw new InvalidSettingException(key, value,
                        "expected [schema.]table of lower-case letters, digits and '_', each part 1-63 characters");
            }
        }
        return parts.length == 2 ? new TableName(parts[0], parts[1]) : new TableName(null, parts[0]);
    }

    public String qualified() {
        return schema == null ? table : schema + "." + table;
    }
}
