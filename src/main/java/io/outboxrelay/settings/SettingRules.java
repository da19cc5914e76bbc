package io.outboxrelay.settings;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.outboxrelay.settings.SettingsCatalogue.AMQP_BROKER_URL;
import static io.outboxrelay.settings.SettingsCatalogue.BACKOFF_MAX;
import static io.outboxrelay.settings.SettingsCatalogue.DB_POOL_SIZE;
import static io.outboxrelay.settings.SettingsCatalogue.ENDPOINT;
import static io.outboxrelay.settings.SettingsCatalogue.INSTANCE_ID;
import static io.outboxrelay.settings.SettingsCatalogue.LEASE;
import static io.outboxrelay.settings.SettingsCatalogue.STALE_AFTER;

/**
 * What the catalogue's types and ranges cannot say: the rules between settings (a lease outlives three heartbeats,
 * the pool has room for every claim) and the form of a few values (the endpoint's scheme, the AMQP broker URL, the
 * instance name). Each refusal is one line naming the setting.
 */
final class SettingRules {

    private static final Pattern INSTANCE_ID_FORM = Pattern.compile("[A-Za-z0-9._:-]{1,100}");
    private static final Pattern SCHEME = Pattern.compile("([a-z][a-z0-9+.-]*):.+");
    /** The schemes of the Qpid JMS client's URLs. */
    private static final Pattern AMQP_URL = Pattern.compile("(amqps?|amqpwss?|failover):.+");
    /** Pool connections besides the claims': the new-events watch holds one, the heartbeat and the janitors. */
    static final int POOL_BESIDES_CLAIMS = 2;

    private SettingRules() {
    }

    /** The rules between settings, once each has passed its own check. */
    static void checkTogether(RelaySettings s) {
        if (s.backoffMax().compareTo(s.backoffInitial()) < 0) {
            throw new InvalidSettingException(BACKOFF_MAX.key(), s.backoffMax().toString(),
                    "must not be shorter than outbox.backoff.initial (" + s.backoffInitial() + ")");
        }
        if (s.lease().compareTo(s.instanceHeartbeat().multipliedBy(3)) < 0) {
            // a lease renewed by every heartbeat must survive two missed ones
            throw new InvalidSettingException(LEASE.key(), s.lease().toString(),
                    "must be at least 3 x outbox.instance.heartbeat (" + s.instanceHeartbeat() + ")");
        }
        if (s.instanceStaleAfter().compareTo(s.instanceHeartbeat().multipliedBy(2)) < 0) {
            throw new InvalidSettingException(STALE_AFTER.key(), s.instanceStaleAfter().toString(),
                    "must be at least 2 x outbox.instance.heartbeat (" + s.instanceHeartbeat() + ")");
        }
        if (s.dbPoolSize() <= s.concurrentClaims() + POOL_BESIDES_CLAIMS) {
            // a claim waiting for a connection holds its partitions and keys the whole time
            throw new InvalidSettingException(DB_POOL_SIZE.key(), Integer.toString(s.dbPoolSize()),
                    "must be more than outbox.concurrent-claims + " + POOL_BESIDES_CLAIMS + " ("
                            + (s.concurrentClaims() + POOL_BESIDES_CLAIMS) + "): the new-events watch, the heartbeat "
                            + "and the janitors need connections besides the claims'");
        }
    }

    /** The endpoint URI's scheme, which must name a Camel component on the classpath. */
    static String endpointScheme(String endpoint, Predicate<String> componentExists) {
        Matcher scheme = SCHEME.matcher(endpoint);
        if (!scheme.matches() || !componentExists.test(scheme.group(1))) {
            throw new InvalidSettingException(ENDPOINT.key(), endpoint,
                    "expected a Camel endpoint URI with a known scheme, e.g. kafka:topic, jms:queue:name or "
                            + "amqp:queue:name");
        }
        return scheme.group(1);
    }

    /**
     * outbox.amqp.broker-url, checked here so that a mistyped URL stops the relay at start rather than failing every
     * send; the Qpid client itself (and its check of the jms.* options) is loaded on first use.
     */
    static String amqpBrokerUrl(String url) {
        // the query may hold jms.password: never shown
        String shown = url.replaceFirst("\\?.*", "?...");
        if (!AMQP_URL.matcher(url).matches()) {
            throw new InvalidSettingException(AMQP_BROKER_URL.key(), shown,
                    "expected a Qpid JMS URL such as amqp://host:5672 or amqps://host:5671");
        }
        if (url.matches(".*://[^/?,()]*@.*")) {
            // Qpid refuses a user in the URL itself
            throw new InvalidSettingException(AMQP_BROKER_URL.key(), "(not shown: it holds credentials)",
                    "put the user and password in the query: amqp://host:5672?jms.username=...&jms.password=...");
        }
        return url;
    }

    /**
     * This process's name among the relay instances: the configured name (a pod's name, say), or the host and process
     * id, always followed by a suffix of its own. A relay restarted under the same name is a new owner: it waits for
     * its previous life's partitions to be free like any other instance, instead of taking over events that life may
     * still have had in flight.
     */
    static String instanceId(String configured) {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        if (configured.isEmpty()) {
            return hostName() + "-" + ManagementFactory.getRuntimeMXBean().getPid() + "-" + suffix;
        }
        if (!INSTANCE_ID_FORM.matcher(configured).matches()) {
            throw new InvalidSettingException(INSTANCE_ID.key(), configured,
                    "expected 1-100 characters of letters, digits and . _ : -");
        }
        return configured + "-" + suffix;
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "relay";
        }
    }
}
