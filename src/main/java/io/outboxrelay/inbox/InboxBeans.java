package io.outboxrelay.inbox;

import javax.sql.DataSource;

import io.outboxrelay.settings.Database;
import io.outboxrelay.settings.InboxSettings;
import org.apache.camel.CamelContext;
import org.apache.camel.spring.spi.SpringTransactionPolicy;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * The inbox template's beans (routes/inbox.camel.yaml): its table, created when a consumer first uses it, and the
 * transacted step's policy: Spring's transaction manager over the relay's data source, which the sql: steps'
 * JdbcTemplate (the inbox's insert, the handler's writes) joins.
 */
public final class InboxBeans {

    private InboxBeans() {
    }

    public static void bind(CamelContext context, DataSource dataSource, Database database, InboxSettings settings) {
        context.getRegistry().bind("inboxSchema",
                new InboxSchema(dataSource, database, settings.inboxTable(), settings.inboxSchemaMigrate()));
        context.getRegistry().bind("inboxTransaction",
                new SpringTransactionPolicy(new DataSourceTransactionManager(dataSource)));
    }
}
