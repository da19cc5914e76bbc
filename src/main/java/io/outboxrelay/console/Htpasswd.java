package io.outboxrelay.console;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import io.outboxrelay.settings.InvalidSettingException;
import org.mindrot.jbcrypt.BCrypt;

/**
 * An htpasswd file of bcrypt entries ({@code htpasswd -nbB name password}), read once at startup. Any other kind of
 * entry (MD5, SHA, crypt, plain) is refused: the file's setting is then bad configuration. Hashes never leave this
 * class (not in messages, not in logs).
 */
final class Htpasswd {

    private static final Pattern BCRYPT = Pattern.compile("\\$2[aby]\\$\\d\\d\\$[./A-Za-z0-9]{53}");

    private final Map<String, String> hashes;

    private Htpasswd(Map<String, String> hashes) {
        this.hashes = hashes;
    }

    static final Htpasswd EMPTY = new Htpasswd(Map.of());

    /** The file a setting names; an empty value is no users. */
    static Htpasswd read(String key, String file) {
        if (file.isBlank()) {
            return EMPTY;
        }
        List<String> lines;
        try {
            lines = Files.readAllLines(Path.of(file), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new InvalidSettingException(key, file, "cannot read the htpasswd file ("
                    + e.getClass().getSimpleName() + "); create it with htpasswd -cbB " + file + " name password");
        }
        Map<String, String> hashes = new HashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int colon = line.indexOf(':');
            if (colon <= 0 || !BCRYPT.matcher(line.substring(colon + 1)).matches()) {
                throw new InvalidSettingException(key, file, "line " + (i + 1)
                        + " is not name:bcrypt-hash (write entries with htpasswd -nbB name password)");
            }
            hashes.put(line.substring(0, colon), line.substring(colon + 1));
        }
        return new Htpasswd(Map.copyOf(hashes));
    }

    boolean isEmpty() {
        return hashes.isEmpty();
    }

    /** Whether the user is in the file with this password (bcrypt: deliberately slow). */
    boolean matches(String user, String password) {
        String hash = hashes.get(user);
        if (hash == null) {
            return false;
        }
        // jBCrypt knows only the $2a$ prefix; $2y$ (htpasswd's) and $2b$ hash the same way
        return BCrypt.checkpw(password, "$2a$" + hash.substring(4));
    }
}
