package io.outboxrelay.publish;

import io.outboxrelay.event.EventBatch;
import org.apache.camel.Body;
import org.apache.camel.ExchangeProperty;
import org.apache.camel.Header;

/** The publish routes' bookkeeping steps on the claim's batch: acknowledged, broker down, may it still be sent. */
public class SendOutcomes {

    public void published(@ExchangeProperty(EventBatch.PROPERTY) EventBatch batch, @Header("ce_id") String id) {
        batch.published(id);
    }

    public void brokerDown(@ExchangeProperty(EventBatch.PROPERTY) EventBatch batch) {
        batch.stopSending();
    }

    public boolean maySend(@ExchangeProperty(EventBatch.PROPERTY) EventBatch batch, @Body String id) {
        return batch.maySend(id);
    }
}
