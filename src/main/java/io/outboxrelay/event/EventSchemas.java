package io.outboxrelay.event;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import com.networknt.schema.path.PathType;
import io.outboxrelay.settings.InvalidSettingException;
import io.outboxrelay.settings.SettingsCatalogue;

/**
 * The event schemas of outbox.schemas-dir: {@code <aggregate_type>/<event_type>.schema.json}, JSON Schema files read,
 * checked against their draft's meta-schema and parsed once, at startup, so that checking an event costs a map lookup
 * and one validation. A file's {@code $schema} names its draft, 2020-12 when it names none. A file that does not
 * parse or is not a valid schema is bad configuration ({@link InvalidSettingException} naming outbox.schemas-dir and
 * the file). Shared by the relay (publish.CloudEventsMapper) and the operator's validate command.
 * <p>
 * Java because camel-json-validator checks a message against one schema named in its endpoint, not one picked per
 * event type, and is not served at the project's Camel version; this uses the validator it wraps (networknt).
 */
public final class EventSchemas {

    public static final String SETTING = SettingsCatalogue.SCHEMAS_DIR.key();
    /** No directory: no event is checked. */
    public static final EventSchemas NONE = new EventSchemas("", Map.of());

    private static final String SUFFIX = ".schema.json";
    private static final ObjectMapper JSON = new ObjectMapper();
    /** At most this many of a payload's errors are told: last_error is for people. */
    private static final int MAX_VIOLATIONS_TOLD = 20;

    private final String directory;
    /** aggregate_type, then event_type: looked up per event without building a key. */
    private final Map<String, Map<String, EventSchema>> byType;
    private final int size;

    private EventSchemas(String directory, Map<String, Map<String, EventSchema>> byType) {
        this.directory = directory;
        this.byType = byType;
        this.size = byType.values().stream().mapToInt(Map::size).sum();
    }

    /**
     * Reads every schema of the directory.
     *
     * @param directory outbox.schemas-dir; empty for {@link #NONE}
     * @throws InvalidSettingException the directory is missing, or a file does not parse or is not a valid schema
     */
    public static EventSchemas load(String directory) {
        if (directory.isEmpty()) {
            return NONE;
        }
        Path root = Path.of(directory);
        if (!Files.isDirectory(root)) {
            throw new InvalidSettingException(SETTING, directory, "not a directory");
        }
        SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12,
                builder -> builder.schemaRegistryConfig(
                        SchemaRegistryConfig.builder().pathType(PathType.JSON_POINTER).build()));
        Map<String, Map<String, EventSchema>> byType = new HashMap<>();
        for (Path file : schemaFiles(root, directory)) {
            Path relative = root.relativize(file);
            if (relative.getNameCount() != 2) {
                throw new InvalidSettingException(SETTING, directory, "schema file " + file
                        + " is not where a schema belongs: <aggregate_type>/<event_type>" + SUFFIX);
            }
            String aggregateType = relative.getName(0).toString();
            String fileName = relative.getName(1).toString();
            String eventType = fileName.substring(0, fileName.length() - SUFFIX.length());
            EventSchema schema = parse(registry, directory, file, relative.toString().replace('\\', '/'));
            byType.computeIfAbsent(aggregateType, t -> new HashMap<>()).put(eventType, schema);
        }
        return new EventSchemas(directory, Map.copyOf(byType));
    }

    /** Every *.schema.json under the directory (symbolic links followed, as a mounted ConfigMap has them). */
    private static List<Path> schemaFiles(Path root, String directory) {
        // deeper than <aggregate_type>/<file> is looked at too, to refuse a misplaced file rather than ignore it
        try (Stream<Path> files = Files.walk(root, 3, FileVisitOption.FOLLOW_LINKS)) {
            return files.filter(f -> !hidden(root.relativize(f)))
                    .filter(f -> f.getFileName().toString().endsWith(SUFFIX) && Files.isRegularFile(f))
                    .sorted()
                    .collect(Collectors.toList());
        } catch (IOException | UncheckedIOException e) {
            throw new InvalidSettingException(SETTING, directory, "cannot read the directory: " + e.getMessage());
        }
    }

    /** Kubernetes' ..data and timestamped directories of a mounted volume, editors' dot files. */
    private static boolean hidden(Path relative) {
        for (Path name : relative) {
            if (name.toString().startsWith(".")) {
                return true;
            }
        }
        return false;
    }

    private static EventSchema parse(SchemaRegistry registry, String directory, Path file, String relative) {
        JsonNode node;
        try {
            node = JSON.readTree(file.toFile());
        } catch (JsonProcessingException e) {
            throw new InvalidSettingException(SETTING, directory, "schema file " + file + " does not parse: "
                    + e.getOriginalMessage()
                    + (e.getLocation() == null ? "" : " (line " + e.getLocation().getLineNr() + ")"));
        } catch (IOException e) {
            throw new InvalidSettingException(SETTING, directory, "cannot read schema file " + file + ": " + e);
        }
        if (node == null || !(node.isObject() || node.isBoolean())) {
            throw invalid(directory, file, "a schema is an object or a boolean, not "
                    + (node == null ? "nothing" : node.getNodeType()));
        }
        SpecificationVersion draft = draft(node).orElseThrow(() -> invalid(directory, file,
                "$schema " + node.get("$schema") + " names no draft this relay knows (draft-04, draft-06, draft-07, "
                        + "2019-09, 2020-12)"));
        List<Error> metaErrors = registry.getSchema(SchemaLocation.of(draft.getDialectId())).validate(node);
        if (!metaErrors.isEmpty()) {
            throw invalid(directory, file, "not a valid " + draft.getDialectId() + " schema: " + describe(
                    metaErrors.stream().map(Violation::of).distinct().collect(Collectors.toList())));
        }
        Schema schema;
        try {
            schema = registry.getSchema(node);
            // references and keywords resolved now, not at the first event
            schema.initializeValidators();
        } catch (RuntimeException e) {
            throw invalid(directory, file, e.getMessage());
        }
        JsonNode id = node.path(draft == SpecificationVersion.DRAFT_4 ? "id" : "$id");
        return new EventSchema(relative, Path.of(directory).resolve(relative).toString(),
                id.isTextual() ? id.asText() : null, schema);
    }

    /** The file's draft: its $schema, 2020-12 when it names none, empty when it names an unknown one. */
    private static Optional<SpecificationVersion> draft(JsonNode node) {
        JsonNode named = node.path("$schema");
        if (named.isMissingNode()) {
            return Optional.of(SpecificationVersion.DRAFT_2020_12);
        }
        String id = named.asText().replaceFirst("#$", "");
        for (SpecificationVersion version : SpecificationVersion.values()) {
            String known = version.getDialectId().replaceFirst("#$", "");
            // http or https: both are seen in the wild for every draft
            if (known.replaceFirst("^https?:", "").equals(id.replaceFirst("^https?:", ""))) {
                return Optional.of(version);
            }
        }
        return Optional.empty();
    }

    private static InvalidSettingException invalid(String directory, Path file, String why) {
        return new InvalidSettingException(SETTING, directory,
                "schema file " + file + " is not a valid schema: " + why);
    }

    /** The schema of an event type, or null when it has none (the event goes out unchecked). */
    public EventSchema find(String aggregateType, String eventType) {
        Map<String, EventSchema> ofAggregate = byType.get(aggregateType);
        return ofAggregate == null ? null : ofAggregate.get(eventType);
    }

    /** outbox.schemas-dir as configured ("" for none). */
    public String directory() {
        return directory;
    }

    /** How many schema files were loaded. */
    public int size() {
        return size;
    }

    static String describe(List<Violation> violations) {
        List<String> told = new ArrayList<>();
        for (Violation violation : violations.subList(0, Math.min(violations.size(), MAX_VIOLATIONS_TOLD))) {
            told.add(violation.toString());
        }
        String more = violations.size() > MAX_VIOLATIONS_TOLD
                ? "; and " + (violations.size() - MAX_VIOLATIONS_TOLD) + " more"
                : "";
        return String.join("; ", told) + more;
    }

    /**
     * One event type's schema, parsed.
     *
     * @param file the file relative to outbox.schemas-dir, e.g. order/OrderPlaced.schema.json
     * @param path the file as the relay opened it (outbox.schemas-dir resolved against the working directory's view)
     * @param id the schema's $id, or null
     */
    public record EventSchema(String file, String path, String id, Schema schema) {

        /** What is wrong with the payload (a JSON text), in document order; empty when it is valid. */
        public List<Violation> check(String payload) {
            List<Error> errors;
            try {
                errors = schema.validate(payload, InputFormat.JSON);
            } catch (RuntimeException e) {
                // the column is jsonb, so only a payload from elsewhere can get here
                return List.of(new Violation("", "not JSON: " + e.getMessage()));
            }
            if (errors.isEmpty()) {
                return List.of();
            }
            List<Violation> violations = new ArrayList<>(errors.size());
            errors.forEach(e -> violations.add(Violation.of(e)));
            return violations;
        }

        /** For last_error: the file and every failing JSON pointer with what is wrong there. */
        public String describe(List<Violation> violations) {
            return "payload rejected by schema " + path + ": " + EventSchemas.describe(violations);
        }
    }
}
