package io.outboxrelay.console;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import io.outboxrelay.settings.InvalidSettingException;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.outboxrelay.console.ConsoleClient.OPERATOR;
import static io.outboxrelay.console.ConsoleClient.OPERATOR_PASSWORD;
import static io.outboxrelay.console.ConsoleClient.VIEWER;
import static io.outboxrelay.console.ConsoleClient.VIEWER_PASSWORD;
import static io.outboxrelay.console.ConsoleClient.basic;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * (unit) The console's access rules without a relay: htpasswd files as htpasswd -nbB writes them, the two roles, the
 * credentials never kept on the exchange nor shown, the same-origin rule, and the replay tokens.
 */
class ConsoleAccessTest {

    @TempDir
    Path dir;

    private ConsoleAccess access() throws IOException {
        Files.writeString(dir.resolve("v"), ConsoleClient.entry(VIEWER, VIEWER_PASSWORD));
        Files.writeString(dir.resolve("o"), "\n# operators\n" + ConsoleClient.entry(OPERATOR, OPERATOR_PASSWORD));
        return new ConsoleAccess(Htpasswd.read("outbox.console.viewers", dir.resolve("v").toString()),
                Htpasswd.read("outbox.console.operators", dir.resolve("o").toString()));
    }

    private static Exchange request(String authorization) {
        Exchange exchange = new DefaultExchange(new DefaultCamelContext());
        exchange.getMessage().setHeader("Authorization", authorization);
        exchange.getMessage().setHeader(Exchange.HTTP_URL, "http://127.0.0.1:8080/outbox/api/replay");
        return exchange;
    }

    private static int refusal(Runnable call) {
        return assertThrows(ConsoleRefusal.class, call::run).getStatus();
    }

    @Test
    void rolesFromTheTwoFiles() throws IOException {
        ConsoleAccess access = access();
        Exchange viewer = request(basic(VIEWER, VIEWER_PASSWORD));
        access.viewer(viewer);
        assertEquals(VIEWER, viewer.getProperty(ConsoleAccess.USER));
        assertNull(viewer.getMessage().getHeader("Authorization"), "never kept on the exchange");
        assertEquals(403, refusal(() -> access.operator(request(basic(VIEWER, VIEWER_PASSWORD)))));

        assertEquals(OPERATOR, access.operator(fromThePage()));
        // remembered: the second time is not bcrypt again, and still checked
        assertEquals(OPERATOR, access.operator(fromThePage()));
    }

    private static Exchange fromThePage() {
        Exchange operator = request(basic(OPERATOR, OPERATOR_PASSWORD));
        operator.getMessage().setHeader(ConsoleAccess.CONSOLE_HEADER, "1");
        operator.getMessage().setHeader("Origin", "http://127.0.0.1:8080");
        return operator;
    }

    @Test
    void wrongOrMissingCredentialsAre401WithoutTheSecret() throws IOException {
        ConsoleAccess access = access();
        assertEquals(401, refusal(() -> access.viewer(request(null))));
        assertEquals(401, refusal(() -> access.viewer(request("Bearer token"))));
        assertEquals(401, refusal(() -> access.viewer(request("Basic !!!"))));
        ConsoleRefusal wrong = assertThrows(ConsoleRefusal.class,
                () -> access.viewer(request(basic(VIEWER, "not-" + VIEWER_PASSWORD))));
        assertEquals(401, wrong.getStatus());
        assertFalse(wrong.getMessage().contains(VIEWER_PASSWORD));
        assertTrue(wrong.getChallenge().startsWith("Basic realm="));
        // a viewer's password is not an operator's
        assertEquals(401, refusal(() -> access.viewer(request(basic(OPERATOR, VIEWER_PASSWORD)))));
    }

    @Test
    void onlyTheConsolesOwnPageChangesState() throws IOException {
        ConsoleAccess access = access();
        Exchange form = request(basic(OPERATOR, OPERATOR_PASSWORD));
        assertEquals(403, refusal(() -> access.operator(form)));
        assertTrue(ConsoleAccess.sameOrigin("http://127.0.0.1:8080", "http://127.0.0.1:8080/outbox/api/replay"));
        assertTrue(ConsoleAccess.sameOrigin("https://ops.example", "https://ops.example:443/outbox/api/replay"));
        assertFalse(ConsoleAccess.sameOrigin("http://127.0.0.1:8081", "http://127.0.0.1:8080/outbox/api/replay"));
        assertFalse(ConsoleAccess.sameOrigin("https://127.0.0.1:8080", "http://127.0.0.1:8080/outbox/api/replay"));
        assertFalse(ConsoleAccess.sameOrigin("null", "http://127.0.0.1:8080/outbox/api/replay"));
    }

    @Test
    void badFilesAreBadSettingsNamingTheKeyNotTheHash() throws IOException {
        InvalidSettingException missing = assertThrows(InvalidSettingException.class,
                () -> Htpasswd.read("outbox.console.viewers", dir.resolve("absent").toString()));
        assertTrue(missing.getMessage().startsWith("invalid setting outbox.console.viewers="), missing.getMessage());
        Path md5 = dir.resolve("md5");
        Files.writeString(md5, ConsoleClient.entry("ann", "pw") + "bob:$apr1$Qa3jK1mz$VnwBDn5z0dI7M8cPSGqG/1\n");
        InvalidSettingException notBcrypt = assertThrows(InvalidSettingException.class,
                () -> Htpasswd.read("outbox.console.operators", md5.toString()));
        assertTrue(notBcrypt.getMessage().contains("line 2 is not name:bcrypt-hash"), notBcrypt.getMessage());
        assertFalse(notBcrypt.getMessage().contains("$apr1$"));
    }

    @Test
    void aTokenVouchesForItsSelectionCountAndSeqOnly() {
        ReplayTokens tokens = new ReplayTokens();
        String token = tokens.issue("{\"status\":\"FAILED\"}", 3, 42);
        assertEquals(new ReplayTokens.Confirmed(3, 42), tokens.verify("{\"status\":\"FAILED\"}", token));
        assertNull(tokens.verify("{\"status\":\"FAILED\",\"aggregateType\":\"x\"}", token));
        assertNull(tokens.verify("{\"status\":\"FAILED\"}", token.replaceFirst("^42\\.3", "99.3")));
        assertNull(tokens.verify("{\"status\":\"FAILED\"}", token.replaceFirst("^42\\.3", "42.4")));
        assertNull(new ReplayTokens().verify("{\"status\":\"FAILED\"}", token), "another process's key");
        assertNull(tokens.verify("{\"status\":\"FAILED\"}", "garbage"));
    }
}
