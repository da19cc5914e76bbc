package io.outboxrelay.sql;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;

import javax.sql.DataSource;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * MariaDB has no arrays: the relay's list parameters (partitions Integer[], event ids String[], bound by camel-sql,
 * JdbcTemplate and plain JDBC alike) reach its statements as JSON text, which they read with JSON_TABLE. Java because
 * neither camel-sql nor the driver has a hook for that at one place: this data source hands out connections whose
 * prepared statements bind an array given to setObject as its JSON text, and every other call as it is.
 */
public final class JsonArrayParameters implements DataSource {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final DataSource dataSource;

    public JsonArrayParameters(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** An array as JSON text ([1,2], ["a","b"]); anything else unchanged. */
    public static Object json(Object value) {
        if (value instanceof Object[] array) {
            try {
                return JSON.writeValueAsString(array);
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException("cannot write " + array.length + " values as JSON", e);
            }
        }
        return value;
    }

    @Override
    public Connection getConnection() throws SQLException {
        return connection(dataSource.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return connection(dataSource.getConnection(username, password));
    }

    private static Connection connection(Connection connection) {
        return proxy(Connection.class, connection, (method, args) -> {
            Object result = method.invoke(connection, args);
            return result instanceof PreparedStatement statement && method.getName().startsWith("prepare")
                    ? statement(statement) : result;
        });
    }

    private static PreparedStatement statement(PreparedStatement statement) {
        return proxy(PreparedStatement.class, statement, (method, args) -> {
            if ("setObject".equals(method.getName()) && args.length == 2) {
                args[1] = json(args[1]);
            }
            return method.invoke(statement, args);
        });
    }

    /** A call on the proxy, passed on to the target. */
    private interface Call {
        Object invoke(Method method, Object[] args) throws ReflectiveOperationException;
    }

    private static <T> T proxy(Class<T> type, T target, Call call) {
        InvocationHandler handler = (p, method, args) -> {
            try {
                return call.invoke(method, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return type.cast(Proxy.newProxyInstance(JsonArrayParameters.class.getClassLoader(), new Class<?>[] {type},
                handler));
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return dataSource.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        dataSource.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        dataSource.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return dataSource.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return dataSource.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return iface.isInstance(this) ? iface.cast(this) : dataSource.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return iface.isInstance(this) || dataSource.isWrapperFor(iface);
    }
}
