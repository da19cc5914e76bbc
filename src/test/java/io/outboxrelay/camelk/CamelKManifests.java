package io.outboxrelay.camelk;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;

/**
 * The manifests under deploy/camel-k and the Camel K CRDs they are checked against (test resources
 * camel-k-crds-2.4.0, copied from the Camel K 2.4.0 release).
 */
final class CamelKManifests {

    static final Path DIRECTORY = Path.of("deploy/camel-k");
    static final String CAMEL_API = "camel.apache.org/v1";
    private static final String CRDS = "camel-k-crds-2.4.0/";
    private static final Map<String, String> CRD_OF_KIND = Map.of(
            "Integration", "camel.apache.org_integrations.yaml",
            "Kamelet", "camel.apache.org_kamelets.yaml",
            "Pipe", "camel.apache.org_pipes.yaml");

    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final SchemaRegistry SCHEMAS = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_4);

    private CamelKManifests() {
    }

    static List<Path> all() {
        try (Stream<Path> files = Files.walk(DIRECTORY)) {
            return files.filter(f -> f.toString().endsWith(".yaml")).sorted().collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static JsonNode read(Path manifest) {
        try {
            return YAML.readTree(manifest.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot parse " + manifest, e);
        }
    }

    static Set<String> kinds() {
        return CRD_OF_KIND.keySet();
    }

    /**
     * Schema errors of a camel.apache.org/v1 resource; unknown fields are errors, as with kubectl
     * --validate=strict.
     */
    static List<Error> validate(JsonNode resource) {
        return SCHEMAS.getSchema(strict(crdSchema(resource.path("kind").asText()))).validate(resource);
    }

    /**
     * Errors of a Pipe's or binding's Kamelet properties against the Kamelet's own definition. The CRD types a
     * property's minimum and maximum as strings (Go's json.Number, a JSON number written as text); Camel K hands them
     * on as numbers, and so are they read here.
     */
    static List<Error> validateProperties(JsonNode kamelet, JsonNode properties) {
        JsonNode definition = kamelet.path("spec").path("definition").deepCopy();
        definition.path("properties").forEach(property -> {
            for (String bound : List.of("minimum", "maximum")) {
                if (property.path(bound).isTextual()) {
                    ((ObjectNode) property).put(bound, new BigDecimal(property.path(bound).asText()));
                }
            }
        });
        Schema schema = SCHEMAS.getSchema(definition);
        return schema.validate(properties);
    }

    static JsonNode crdSchema(String kind) {
        String file = CRD_OF_KIND.get(kind);
        if (file == null) {
            throw new IllegalArgumentException("no Camel K CRD for kind " + kind);
        }
        try (InputStream in = CamelKManifests.class.getClassLoader().getResourceAsStream(CRDS + file)) {
            JsonNode crd = YAML.readTree(in);
            for (JsonNode version : crd.path("spec").path("versions")) {
                if ("v1".equals(version.path("name").asText())) {
                    return version.path("schema").path("openAPIV3Schema").deepCopy();
                }
            }
            throw new IllegalStateException(file + " has no v1 schema");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The API server prunes fields a structural schema does not declare, silently: a misspelt trait option would be
     * dropped, not rejected. Declaring additionalProperties=false where the schema lists properties (and does not ask
     * to keep unknown fields) turns such a field into a validation error.
     */
    static JsonNode strict(JsonNode schema) {
        if (!schema.isObject()) {
            return schema;
        }
        ObjectNode node = (ObjectNode) schema;
        if (node.has("properties")) {
            if (!node.has("additionalProperties")
                    && !node.path("x-kubernetes-preserve-unknown-fields").asBoolean(false)) {
                node.put("additionalProperties", false);
            }
            node.get("properties").forEach(CamelKManifests::strict);
        }
        strict(node.path("items"));
        strict(node.path("additionalProperties"));
        for (String combinator : List.of("allOf", "anyOf", "oneOf")) {
            node.path(combinator).forEach(CamelKManifests::strict);
        }
        return schema;
    }
}
