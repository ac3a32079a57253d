package net.cheetah.cli;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.OptionalLong;

/** Reads counters off goflow2's Prometheus page (cheetah-goflow2's {@code /metrics}). */
final class CollectorMetrics {
  /**
   * Datagrams the kernel dropped because goflow2's UDP receive buffer was full (/proc/net/udp's
   * drops of its own sockets): ingest/goflow2/README.md, "Receive buffer and kernel drops".
   */
  static final String KERNEL_DROPS = "cheetah_goflow2_socket_drops_total";

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private CollectorMetrics() {}

  /** The sum of every series of {@code metric} at {@code url}; empty if it cannot be read. */
  static OptionalLong read(String url, String metric) {
    try {
      HttpResponse<String> r =
          HTTP.send(
              HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
              HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200 ? OptionalLong.of(sum(r.body(), metric)) : OptionalLong.empty();
    } catch (IOException | IllegalArgumentException e) {
      return OptionalLong.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return OptionalLong.empty();
    }
  }

  /** The sum of every series of {@code metric} in a Prometheus text page. */
  static long sum(String page, String metric) {
    double total = 0;
    for (String line : page.split("\n")) {
      if (line.startsWith(metric + "{") || line.startsWith(metric + " ")) {
        total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return Math.round(total);
  }
}
