package net.cheetah.runtime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * Loopback ports for the embedded services. Everything in embedded mode listens on 127.0.0.1 only
 * (docs/ARCHITECTURE.md, "Runtime modes").
 */
public final class FreePorts {

  /** The only address embedded services bind to. */
  public static final String LOOPBACK = "127.0.0.1";

  private FreePorts() {}

  /**
   * A port the OS reported free on 127.0.0.1 a moment ago. Another process may still take it before
   * it is used; callers bind it immediately.
   */
  public static int pick() {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(loopback(), 0));
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("Could not find a free port on " + LOOPBACK, e);
    }
  }

  /** {@code port} itself, or a free port when it is 0. */
  public static int resolve(int port) {
    checkRange(port);
    return port == 0 ? pick() : port;
  }

  /** Whether a server socket could bind 127.0.0.1:{@code port} right now. */
  public static boolean isFree(int port) {
    checkRange(port);
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(loopback(), port));
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Fails with a message naming the service and the setting to change when 127.0.0.1:{@code port}
   * is taken.
   */
  public static void requireFree(int port, String service, String setting) {
    if (!isFree(port)) {
      throw new IllegalStateException(
          "Port "
              + port
              + " on "
              + LOOPBACK
              + " is already in use, so the "
              + service
              + " cannot listen there. Stop the program holding it (e.g. `ss -ltnp 'sport = :"
              + port
              + "'`), or set "
              + setting
              + " to another port (0 picks a free one).");
    }
  }

  static InetAddress loopback() {
    try {
      return InetAddress.getByName(LOOPBACK);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void checkRange(int port) {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("Port " + port + " is outside 0..65535 (0 = pick free)");
    }
  }
}
