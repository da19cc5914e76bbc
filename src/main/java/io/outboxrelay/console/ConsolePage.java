package io.outboxrelay.console;

import java.io.IOException;
import java.io.InputStream;
import java.util.Map;

import org.apache.camel.Exchange;
import org.apache.camel.Message;

/**
 * The console's page: the static files under console/ in the jar (plain HTML, CSS and JavaScript, no build step),
 * only the ones listed here.
 */
public final class ConsolePage {

    private static final Map<String, String> FILES = Map.of(
            "index.html", "text/html; charset=utf-8",
            "console.js", "text/javascript; charset=utf-8",
            "console.css", "text/css; charset=utf-8");

    public byte[] file(Exchange exchange) throws IOException {
        Message in = exchange.getMessage();
        String name = in.getHeader("file", "index.html", String.class);
        String type = FILES.get(name);
        if (type == null) {
            throw new ConsoleRefusal(404, "no file " + name + " in the console");
        }
        try (InputStream file = ConsolePage.class.getClassLoader().getResourceAsStream("console/" + name)) {
            if (file == null) {
                throw new ConsoleRefusal(404, "no file " + name + " in the console");
            }
            in.setHeader(Exchange.CONTENT_TYPE, type);
            return file.readAllBytes();
        }
    }
}
