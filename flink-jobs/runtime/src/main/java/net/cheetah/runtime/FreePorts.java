package net.cheetah.runtime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Set;
import java.util.function.IntSupplier;

/**
 * Loopback ports for the embedded services. Everything in embedded mode listens on 127.0.0.1 only
 * (docs/ARCHITECTURE.md, "Runtime modes").
 */
public final class FreePorts {

  /** The only address embedded services bind to. */
  public static final String LOOPBACK = "127.0.0.1";

  /** How many of the last picked ports {@link #pick()} will not hand out again. */
  static final int REMEMBERED = 4096;

  private static final int ATTEMPTS = 64;
  private static final Recent RECENT = new Recent(REMEMBERED);

  private FreePorts() {}

  /**
   * A port the OS reported free on 127.0.0.1 a moment ago, and not one this JVM picked recently:
   * the OS may offer a port it just offered again while the first caller has not bound it yet (the
   * broker and controller of one embedded Kafka once got the same port that way). Another process
   * may still take it before it is used; callers bind it immediately.
   */
  public static int pick() {
    return RECENT.pick(FreePorts::askTheOs);
  }

  private static int askTheOs() {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(loopback(), 0));
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("Could not find a free port on " + LOOPBACK, e);
    }
  }

  /** The last {@code capacity} ports handed out; asks the OS again for any of them. */
  static final class Recent {
    private final int capacity;
    private final ArrayDeque<Integer> order = new ArrayDeque<>();
    private final Set<Integer> members = new HashSet<>();

    Recent(int capacity) {
      this.capacity = capacity;
    }

    synchronized int pick(IntSupplier os) {
      for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
        int port = os.getAsInt();
        if (members.add(port)) {
          order.addLast(port);
          if (order.size() > capacity) {
            members.remove(order.removeFirst());
          }
          return port;
        }
      }
      throw new IllegalStateException(
          "The OS offered only ports already handed out in "
              + ATTEMPTS
              + " attempts; is the ephemeral port range (/proc/sys/net/ipv4/ip_local_port_range)"
              + " nearly exhausted?");
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
