package io.outboxrelay.settings;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.Map;
import java.util.function.Function;

/**
 * Builds a settings record by name: each component is filled by the catalogue's setting it is named after
 * ({@link Setting#componentName()}), read and checked as that setting's type says, then given its form where it has one
 * (a table name parsed, an instance name suffixed). Reordering, adding or removing a component cannot mix two settings
 * up; a component no setting names is refused (RelaySettingsTest checks every component has its setting).
 */
final class SettingsByName {

    private SettingsByName() {
    }

    /**
     * @param forms what a text setting's value becomes in its component, where more than the text
     */
    static <R extends Record> R read(Class<R> type, SettingsReader reader,
            Map<Setting, Function<String, Object>> forms) {
        RecordComponent[] components = type.getRecordComponents();
        Object[] values = new Object[components.length];
        Class<?>[] types = new Class<?>[components.length];
        for (int i = 0; i < components.length; i++) {
            Setting setting = named(components[i].getName());
            types[i] = components[i].getType();
            Object value = value(reader, setting, types[i]);
            Function<String, Object> form = forms.get(setting);
            values[i] = form == null ? value : form.apply((String) value);
        }
        try {
            return type.getDeclaredConstructor(types).newInstance(values);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException refused) {
                throw refused;
            }
            throw new IllegalStateException(type.getSimpleName() + " refused its settings", e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(type.getSimpleName() + " cannot be built from its settings", e);
        }
    }

    /** The catalogue's setting that fills the component of this name. */
    static Setting named(String component) {
        return SettingsCatalogue.ALL.stream().filter(setting -> setting.componentName().equals(component))
                .findFirst().orElseThrow(() -> new IllegalStateException(
                        "no setting of the catalogue fills the component " + component));
    }

    /** The setting's value, read and checked as its type says; a choice as the constant of the component's enum. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Object value(SettingsReader reader, Setting setting, Class<?> componentType) {
        return switch (setting.type()) {
            case TEXT -> reader.text(setting);
            case OPTIONAL_TEXT, SECRET -> reader.optionalText(setting);
            case INTEGER -> reader.integer(setting);
            case DECIMAL -> reader.decimal(setting);
            case BOOLEAN -> reader.bool(setting);
            case DURATION -> reader.duration(setting);
            case OPTIONAL_DURATION -> reader.optionalDuration(setting);
            case CHOICE -> reader.choice(setting, (Class) componentType);
        };
    }
}
