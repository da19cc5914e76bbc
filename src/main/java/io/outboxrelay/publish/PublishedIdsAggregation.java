package io.outboxrelay.publish;

import java.util.ArrayList;
import java.util.List;

import org.apache.camel.AggregationStrategy;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultExchange;

/**
 * Collects the ids of a batch's events that the broker acknowledged, so one statement can mark them all. Failed
 * events were already recorded by the failure route; their exceptions are not carried into the result, so one bad
 * event never keeps its batch from being marked.
 */
public class PublishedIdsAggregation implements AggregationStrategy {

    public static final String PUBLISHED = "outboxPublished";

    @Override
    @SuppressWarnings("unchecked")
    public Exchange aggregate(Exchange collected, Exchange event) {
        Exchange result = collected;
        if (result == null) {
            result = new DefaultExchange(event.getContext());
            result.getMessage().setBody(new ArrayList<String>());
        }
        if (event.getException() == null && event.getProperty(PUBLISHED, false, Boolean.class)) {
            result.getMessage().getBody(List.class).add(event.getProperty(OutboxEventMapper.OUTBOX_ID, String.class));
        }
        return result;
    }

    @Override
    public void onCompletion(Exchange result) {
        if (result != null) {
            // a typed array binds as uuid[] text in the mark statement; a List would not
            result.getMessage().setBody(result.getMessage().getBody(List.class).toArray(new String[0]));
        }
    }
}
