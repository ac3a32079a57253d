package net.cheetah.cli;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** Minimal ClickHouse-HTTP client for the CLI's own checks (counts while the demo waits). */
final class WarehouseClient {
  private final String url;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  WarehouseClient(String url) {
    this.url = url;
  }

  String query(String sql) throws IOException, InterruptedException {
    HttpRequest req =
        HttpRequest.newBuilder(URI.create(url + "/?default_format=TabSeparated"))
            .timeout(Duration.ofSeconds(30))
            .POST(HttpRequest.BodyPublishers.ofString(sql, StandardCharsets.UTF_8))
            .build();
    HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IOException(
          "warehouse refused the query (HTTP " + r.statusCode() + "): " + r.body().strip());
    }
    return r.body().strip();
  }

  long count(String sql) throws IOException, InterruptedException {
    String s = query(sql);
    try {
      return Long.parseLong(s);
    } catch (NumberFormatException e) {
      throw new IOException("expected a number from '" + sql + "', got '" + s + "'");
    }
  }
}
