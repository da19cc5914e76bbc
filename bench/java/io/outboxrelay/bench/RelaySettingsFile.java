package io.outboxrelay.bench;

import java.io.InputStream;
import java.util.Properties;

/** The relay's application.properties, so the raw limits use the same producer and claim settings as the relay. */
final class RelaySettingsFile {

    private static final Properties PROPERTIES = new Properties();

    static {
        try (InputStream in = RelaySettingsFile.class.getClassLoader().getResourceAsStream("application.properties")) {
            PROPERTIES.load(in);
        } catch (Exception e) {
            throw new IllegalStateException("cannot read application.properties", e);
        }
    }

    private RelaySettingsFile() {
    }

    static String get(String key, String fallback) {
        return PROPERTIES.getProperty(key, fallback).trim();
    }
}
