package io.outboxrelay.console;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.camel.Exchange;
import org.apache.camel.Message;

/**
 * Who may use the console (HTTP Basic against the two htpasswd files) and whether a request may change anything.
 * Camel's platform-http offers no per-route Basic auth with bcrypt files on the management server, hence this step at
 * the head of every console route. It reads no database: a wrong or missing credential is refused from memory.
 * Verified credentials are remembered by a SHA-256 of name and password, so bcrypt (about 0.1 s) runs once per user,
 * not per request; a wrong password is checked with bcrypt every time.
 */
public final class ConsoleAccess {

    /** The exchange property naming the authenticated user (for the audit trail). */
    public static final String USER = "outboxConsoleUser";
    /** The header the console's page sends with every state-changing request: a cross-site form cannot set it. */
    public static final String CONSOLE_HEADER = "X-Outbox-Console";

    private static final int CACHE_LIMIT = 1_000;

    enum Role { VIEWER, OPERATOR }

    private final Htpasswd viewers;
    private final Htpasswd operators;
    private final Map<String, Role> verified = new ConcurrentHashMap<>();

    ConsoleAccess(Htpasswd viewers, Htpasswd operators) {
        this.viewers = viewers;
        this.operators = operators;
    }

    /** A viewer or an operator: may read (the head of every reading route). */
    public void viewer(Exchange exchange) {
        authenticate(exchange);
    }

    /** An operator, on a same-origin request from the console's page: may replay. Returns the user's name. */
    String operator(Exchange exchange) {
        User user = authenticate(exchange);
        if (user.role() != Role.OPERATOR) {
            throw new ConsoleRefusal(403, "user " + user.name() + " is a viewer: only operators replay");
        }
        Message in = exchange.getMessage();
        if (!"1".equals(in.getHeader(CONSOLE_HEADER, String.class))) {
            throw new ConsoleRefusal(403, "header " + CONSOLE_HEADER + ": missing; state-changing requests come from "
                    + "the console's page");
        }
        String origin = in.getHeader("Origin", String.class);
        if (origin != null && !sameOrigin(origin, in.getHeader(Exchange.HTTP_URL, String.class))) {
            throw new ConsoleRefusal(403, "header Origin: " + origin + " is another site than this console");
        }
        return user.name();
    }

    private record User(String name, Role role) {
    }

    private User authenticate(Exchange exchange) {
        Message in = exchange.getMessage();
        String authorization = in.getHeader("Authorization", String.class);
        // never kept on the exchange: not logged, not echoed in the response's headers
        in.removeHeader("Authorization");
        if (authorization == null || !authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
            throw new ConsoleRefusal(401, "header Authorization: missing; log in with a console user");
        }
        String decoded;
        try {
            decoded = new String(Base64.getDecoder().decode(authorization.substring(6).strip()),
                    StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new ConsoleRefusal(401, "header Authorization: not Basic credentials");
        }
        int colon = decoded.indexOf(':');
        if (colon < 0) {
            throw new ConsoleRefusal(401, "header Authorization: not Basic credentials");
        }
        String name = decoded.substring(0, colon);
        String password = decoded.substring(colon + 1);
        String fingerprint = fingerprint(decoded);
        Role role = verified.get(fingerprint);
        if (role == null) {
            role = operators.matches(name, password) ? Role.OPERATOR
                    : viewers.matches(name, password) ? Role.VIEWER : null;
            if (role == null) {
                throw new ConsoleRefusal(401, "wrong user name or password");
            }
            if (verified.size() >= CACHE_LIMIT) {
                verified.clear();
            }
            verified.put(fingerprint, role);
        }
        exchange.setProperty(USER, name);
        return new User(name, role);
    }

    /** Whether the Origin header names the site of the request's own URL (scheme, host and port). */
    static boolean sameOrigin(String origin, String requestUrl) {
        if (requestUrl == null) {
            return false;
        }
        try {
            URI from = URI.create(origin);
            URI to = URI.create(requestUrl);
            return from.getScheme() != null && from.getScheme().equalsIgnoreCase(to.getScheme())
                    && from.getHost() != null && from.getHost().equalsIgnoreCase(to.getHost())
                    && port(from) == port(to);
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static int port(URI uri) {
        return uri.getPort() >= 0 ? uri.getPort() : "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
    }

    private static String fingerprint(String credentials) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(credentials.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
