package io.outboxrelay.bench;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The lines under a --db mariadb run that issue 33's MariaDB targets are read from, per run: the drain beside the
 * plain relay written for MariaDB (≥ 1.0×), MariaDB's CPU per event beside the plain relay's (≤ 1.2×, drain and
 * steady), and steady's p99 (≤ 50 ms). The writers' lines are written with PostgreSQL's (Benchmarks.ratios).
 */
final class MariaDbRatios {

    private static final String CPU = "mariadb_cpu_us_per_event";

    private MariaDbRatios() {
    }

    static String of(List<Map<String, Object>> results) {
        Map<Object, Map<String, Map<String, Object>>> runs = new LinkedHashMap<>();
        for (Map<String, Object> r : results) {
            String scenario = (String) r.get("scenario");
            if (scenario.endsWith(BenchDatabase.SUFFIX)) {
                runs.computeIfAbsent(r.get("run"), k -> new HashMap<>()).put(scenario, r);
            }
        }
        StringBuilder md = new StringBuilder();
        for (Map.Entry<Object, Map<String, Map<String, Object>>> run : runs.entrySet()) {
            Map<String, Map<String, Object>> r = run.getValue();
            Map<String, Object> drain = r.get("drain_mariadb");
            Map<String, Object> plainDrain = r.get("plain_drain_mariadb");
            if (drain != null && plainDrain != null) {
                md.append(String.format("Run %s on MariaDB: relay drain %,d events/s = %.2f× the plain relay "
                        + "(%,d/s; target ≥ 1.0×); MariaDB CPU per event %s µs = %.2f× the plain relay's (%s µs; "
                        + "target ≤ 1.2×).%n%n", run.getKey(), number(drain, "events_per_s").longValue(),
                        ratio(drain, plainDrain, "events_per_s"), number(plainDrain, "events_per_s").longValue(),
                        drain.get(CPU), ratio(drain, plainDrain, CPU), plainDrain.get(CPU)));
            }
            Map<String, Object> steady = r.get("steady_mariadb");
            Map<String, Object> plainSteady = r.get("plain_steady_mariadb");
            if (steady != null) {
                md.append(String.format("Run %s on MariaDB: steady %s events/s, commit to broker p99 %s ms (target "
                        + "≤ 50 ms)", run.getKey(), steady.get("target_rate"), steady.get("p99_ms")));
                if (plainSteady != null) {
                    md.append(String.format(", the plain relay's %s ms; MariaDB CPU per event %s µs = %.2f× the "
                            + "plain relay's (%s µs; target ≤ 1.2×)", plainSteady.get("p99_ms"), steady.get(CPU),
                            ratio(steady, plainSteady, CPU), plainSteady.get(CPU)));
                }
                md.append(".\n\n");
            }
        }
        return md.toString();
    }

    private static Number number(Map<String, Object> r, String column) {
        return (Number) r.get(column);
    }

    private static double ratio(Map<String, Object> r, Map<String, Object> base, String column) {
        return number(r, column).doubleValue() / Math.max(1e-9, number(base, column).doubleValue());
    }
}
