package io.outboxrelay.console;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A replay's confirmation token: an HMAC, with a key of this process, over the selection (canonical JSON), the count
 * the operator was shown and the highest seq of the set then. The confirmation replays only a set of that count, up to
 * that seq; a token of another selection, or one changed by hand, is refused. A restarted relay asks again.
 */
final class ReplayTokens {

    /** What a valid token vouches for. */
    record Confirmed(int count, long maxSeq) {
    }

    private final byte[] key = new byte[32];

    ReplayTokens() {
        new SecureRandom().nextBytes(key);
    }

    String issue(String selection, int count, long maxSeq) {
        return maxSeq + "." + count + "." + mac(selection, count, maxSeq);
    }

    /** The count and seq the token was issued for, if it was issued here for this selection; otherwise null. */
    Confirmed verify(String selection, String token) {
        String[] parts = token.split("\\.", -1);
        if (parts.length != 3) {
            return null;
        }
        try {
            long maxSeq = Long.parseLong(parts[0]);
            int count = Integer.parseInt(parts[1]);
            boolean valid = MessageDigest.isEqual(mac(selection, count, maxSeq).getBytes(StandardCharsets.US_ASCII),
                    parts[2].getBytes(StandardCharsets.US_ASCII));
            return valid ? new Confirmed(count, maxSeq) : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private String mac(String selection, int count, long maxSeq) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            byte[] digest = mac.doFinal((selection + "\n" + count + "\n" + maxSeq).getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
