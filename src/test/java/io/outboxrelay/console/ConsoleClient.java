package io.outboxrelay.console;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.outboxrelay.support.RelayInstance;
import io.outboxrelay.support.TestDatabase;
import org.mindrot.jbcrypt.BCrypt;

/** The console's users for the tests (htpasswd files as htpasswd -nbB writes them) and an HTTP client of its API. */
final class ConsoleClient {

    static final String VIEWER = "vera";
    static final String VIEWER_PASSWORD = "viewer-secret-1";
    static final String OPERATOR = "otto";
    static final String OPERATOR_PASSWORD = "operator-secret-2";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newHttpClient();
    private final String base;

    ConsoleClient(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    String base() {
        return base;
    }

    /** The two htpasswd files in dir, as the console's settings; bcrypt cost 4 keeps the tests fast. */
    static Map<String, String> settings(Path dir) {
        try {
            Path viewers = dir.resolve("viewers.htpasswd");
            Path operators = dir.resolve("operators.htpasswd");
            Files.writeString(viewers, "# console viewers\n" + entry(VIEWER, VIEWER_PASSWORD));
            Files.writeString(operators, entry(OPERATOR, OPERATOR_PASSWORD));
            Map<String, String> settings = new HashMap<>();
            settings.put("outbox.console.viewers", viewers.toString());
            settings.put("outbox.console.operators", operators.toString());
            return settings;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A relay on the shared Kafka broker reporting quickly (RelayInstance.reportingSettings) with the console on. */
    static Map<String, String> relaySettings(TestDatabase db) {
        Map<String, String> settings = RelayInstance.reportingSettings(db);
        try {
            settings.putAll(settings(Files.createTempDirectory("console-users")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return settings;
    }

    /** A line as htpasswd -nbB writes it ($2y$). */
    static String entry(String user, String password) {
        return user + ":" + BCrypt.hashpw(password, BCrypt.gensalt(4)).replaceFirst("^\\$2a\\$", "\\$2y\\$") + "\n";
    }

    static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    HttpResponse<String> get(String path, String authorization) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return send(request.build());
    }

    /** GET as the viewer, expecting 200: the JSON answer. */
    JsonNode read(String path) {
        HttpResponse<String> response = get(path, basic(VIEWER, VIEWER_PASSWORD));
        if (response.statusCode() != 200) {
            throw new AssertionError(path + ": " + response.statusCode() + " " + response.body());
        }
        return json(response);
    }

    /** POST /outbox/api/replay as the page sends it (custom header, same Origin). */
    HttpResponse<String> replay(String user, String password, String body) {
        return send(HttpRequest.newBuilder(URI.create(base + "/outbox/api/replay"))
                .header("Authorization", basic(user, password))
                .header("Content-Type", "application/json")
                .header("X-Outbox-Console", "1")
                .header("Origin", base)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    HttpResponse<String> replay(String body) {
        return replay(OPERATOR, OPERATOR_PASSWORD, body);
    }

    HttpResponse<String> send(HttpRequest request) {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static JsonNode json(HttpResponse<String> response) {
        try {
            return JSON.readTree(response.body());
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + response.body(), e);
        }
    }
}
