package io.outboxrelay.architecture;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/architecture.md's reading path for one Kafka event (the files a newcomer opens, in order) matches the code:
 * every file it names exists, the count it states is the count of files it names, and the route files an event goes
 * through are all on it.
 */
class ReadingPathTest {

    /** The route files one Kafka event goes through: the wake-up, claim and send; ownership. */
    private static final List<String> PATH_ROUTES = List.of("routes/claim.camel.yaml", "routes/heartbeat.camel.yaml");
    private static final Pattern FILE = Pattern.compile("`((?:[a-z]+/)*[A-Za-z.-]+\\.(?:java|yaml|sql|md))`");
    private static final Pattern COUNT = Pattern.compile("wake-up, ownership and row mapping included \\((\\d+);");

    @Test
    void theReadingPathNamesFilesThatExistAndCountsThemHonestly() throws IOException {
        String doc = Files.readString(Path.of("docs/architecture.md"));
        String path = doc.substring(doc.indexOf("## One Kafka event"), doc.indexOf("Beside the path"));
        Set<String> files = new LinkedHashSet<>();
        Matcher file = FILE.matcher(path);
        while (file.find()) {
            files.add(file.group(1));
        }
        for (String name : files) {
            assertTrue(Files.exists(resolve(name)), name + " is on the reading path but not in the repository");
        }
        Matcher count = COUNT.matcher(path);
        assertTrue(count.find(), "the reading path states how many files it has");
        assertEquals(Integer.parseInt(count.group(1)), files.size(), "files named on the path: " + files);
        for (String route : PATH_ROUTES) {
            assertTrue(files.contains(route), route + " is on an event's path but not on the reading path");
        }
    }

    private static Path resolve(String name) {
        if (name.equals("README.md")) {
            return Path.of(name);
        }
        if (name.endsWith(".java")) {
            return Path.of("src/main/java/io/outboxrelay", name);
        }
        return Path.of("src/main/resources", name);
    }
}
