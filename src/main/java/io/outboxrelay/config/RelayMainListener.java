package io.outboxrelay.config;

import org.apache.camel.main.BaseMainSupport;
import org.apache.camel.main.MainListenerSupport;

/**
 * Binds the relay's beans ({@link RelayConfiguration}) before Camel Main configures the context: YAML routes (also the
 * user's, in outbox.routes-dir) are pre-parsed early, and their {@code beans:} may refer to the relay's beans, e.g.
 * #outboxDataSource. A configuration class would run too late for them.
 */
public class RelayMainListener extends MainListenerSupport {

    @Override
    public void beforeConfigure(BaseMainSupport main) {
        new RelayConfiguration().configure(main.getCamelContext());
    }
}
