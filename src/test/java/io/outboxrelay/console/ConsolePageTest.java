package io.outboxrelay.console;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;

import io.outboxrelay.support.RelayInstance;
import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

import static io.outboxrelay.console.ConsoleClient.OPERATOR;
import static io.outboxrelay.console.ConsoleClient.OPERATOR_PASSWORD;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The console's page in a real browser (Debian's headless Chromium, driven by Selenium through /usr/bin/chromedriver)
 * on a running relay, the real PostgreSQL and Kafka: log in, see the backlog, filter the failed events, open one,
 * replay the filtered set after its count is shown, see the events published and the audit entry. Saves the
 * README's screenshot, docs/console.png.
 */
@Tag("services")
class ConsolePageTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void anOperatorFindsFailedEventsAndReplaysThem() throws Exception {
        try (TestDatabase db = TestDatabase.create();
                RelayInstance relay = RelayInstance.start(ConsoleClient.relaySettings(db))) {
            // a backlog waiting for its retry, failed events of two destinations
            db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload, attempts, "
                    + "last_error, next_attempt_at) SELECT 'invoice', 'i-' || i, 'InvoiceIssued', '{}', 1, "
                    + "'org.apache.kafka.common.errors.TimeoutException: Expiring 1 record(s)', "
                    + "now() + interval '1 hour' FROM generate_series(1, 7) i");
            db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload, status, attempts, "
                    + "last_error) SELECT 'order', 'order-' || i, 'OrderPlaced', "
                    + "jsonb_build_object('customer', 'c-' || i, 'total', i * 10.5), 'FAILED', 10, "
                    + "'org.apache.kafka.common.errors.RecordTooLargeException: The message is 1048700 bytes' "
                    + "FROM generate_series(1, 5) i");
            db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload, status, attempts, "
                    + "last_error) SELECT 'payment', 'p-' || i, 'PaymentTaken', '{}', 'FAILED', 10, "
                    + "'io.outboxrelay.publish.SchemaViolationException: payment/PaymentTaken.schema.json' "
                    + "FROM generate_series(1, 2) i");
            WebDriver browser = chromium();
            try {
                operate(browser, relay.managementPort(), db);
            } finally {
                browser.quit();
            }
        }
    }

    private static void operate(WebDriver browser, int port, TestDatabase db) throws Exception {
        WebDriverWait wait = new WebDriverWait(browser, WAIT);
        // logged in by the URL's credentials (HTTP Basic); the page fetches the API with them
        browser.get("http://" + OPERATOR + ":" + OPERATOR_PASSWORD + "@127.0.0.1:" + port + "/outbox/");
        wait.until(ExpectedConditions.textToBe(By.id("pending"), "7"));
        assertEquals("7", text(browser, "failed"));
        wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("#destinations tbody tr"), 3));

        browser.findElement(By.id("filter-aggregateType")).sendKeys("order");
        browser.findElement(By.id("filter-error")).sendKeys("RecordTooLarge");
        browser.findElement(By.id("filter-apply")).click();
        wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("#events tbody tr"), 5));

        browser.findElement(By.cssSelector("#events tbody tr")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("detail")));
        assertTrue(text(browser, "detail-payload").contains("\"customer\": \"c-5\""), text(browser, "detail-payload"));
        assertTrue(text(browser, "detail-error").startsWith("org.apache.kafka.common.errors.RecordTooLargeException"));

        browser.findElement(By.id("replay-filtered")).click();
        wait.until(ExpectedConditions.textToBe(By.id("replay-question"), "Replay 5 FAILED events?"));
        assertEquals(5, db.count("SELECT count(*) FROM outbox WHERE aggregate_type = 'order' AND status = 'FAILED'"),
                "nothing replayed before the count is confirmed");
        browser.findElement(By.id("replay-confirm")).click();
        wait.until(ExpectedConditions.textToBe(By.id("message"), "Replayed 5 events."));

        // published to Kafka by the running relay, as the page shows
        await().atMost(WAIT).until(() -> db.count("SELECT count(*) FROM outbox WHERE aggregate_type = 'order' "
                + "AND status = 'PUBLISHED'") == 5);
        new Select(browser.findElement(By.id("filter-status"))).selectByVisibleText("PUBLISHED");
        browser.findElement(By.id("filter-error")).clear();
        browser.findElement(By.id("filter-apply")).click();
        wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("#events tbody tr"), 5));
        wait.until(ExpectedConditions.textToBe(By.id("failed"), "2"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("#audit tbody tr"),
                OPERATOR + " console replay"));
        assertTrue(text(browser, "audit").contains("\"aggregateType\": \"order\""), text(browser, "audit"));

        // the README's screenshot: the failed events of the other destination, one opened
        new Select(browser.findElement(By.id("filter-status"))).selectByVisibleText("FAILED");
        browser.findElement(By.id("filter-aggregateType")).clear();
        browser.findElement(By.id("filter-apply")).click();
        wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("#events tbody tr"), 2));
        browser.findElement(By.cssSelector("#events tbody tr")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("detail-error"), "SchemaViolation"));
        File shot = ((ChromeDriver) browser).getScreenshotAs(OutputType.FILE);
        Files.copy(shot.toPath(), Path.of("docs/console.png"), StandardCopyOption.REPLACE_EXISTING);
    }

    private static String text(WebDriver browser, String id) {
        return browser.findElement(By.id(id)).getText();
    }

    /** Debian's chromium and chromium-driver (./test installs them); Selenium downloads nothing. */
    private static WebDriver chromium() {
        ChromeOptions options = new ChromeOptions();
        options.setBinary("/usr/bin/chromium");
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1400,1500");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File("/usr/bin/chromedriver")).usingAnyFreePort().build();
        return new ChromeDriver(service, options);
    }
}
