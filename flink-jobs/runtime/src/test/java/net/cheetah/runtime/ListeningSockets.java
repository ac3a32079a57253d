package net.cheetah.runtime;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** The TCP sockets this JVM listens on, read from Linux's /proc (test helper). */
final class ListeningSockets {

  record Listener(String address, int port) {
    boolean isLoopback() {
      return address.equals("127.0.0.1") || address.equals("::1");
    }
  }

  private ListeningSockets() {}

  static List<Listener> ofThisProcess() throws IOException {
    Set<String> inodes = new HashSet<>();
    try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
      for (Path fd : fds) {
        try {
          String target = Files.readSymbolicLink(fd).toString();
          if (target.startsWith("socket:[")) {
            inodes.add(target.substring(8, target.length() - 1));
          }
        } catch (IOException e) {
          // the descriptor was closed meanwhile
        }
      }
    }
    List<Listener> listeners = new ArrayList<>();
    read(Path.of("/proc/net/tcp"), inodes, listeners);
    read(Path.of("/proc/net/tcp6"), inodes, listeners);
    return listeners;
  }

  private static void read(Path table, Set<String> inodes, List<Listener> out) throws IOException {
    if (!Files.exists(table)) {
      return;
    }
    List<String> lines = Files.readAllLines(table);
    for (String line : lines.subList(1, lines.size())) {
      String[] f = line.trim().split("\\s+");
      boolean listening = f[3].equals("0A");
      if (listening && inodes.contains(f[9])) {
        String[] local = f[1].split(":");
        out.add(new Listener(address(local[0]), Integer.parseInt(local[1], 16)));
      }
    }
  }

  /** /proc prints addresses as little-endian 32-bit words. */
  private static String address(String hex) {
    if (hex.length() == 8) {
      return Integer.parseInt(hex.substring(6, 8), 16)
          + "."
          + Integer.parseInt(hex.substring(4, 6), 16)
          + "."
          + Integer.parseInt(hex.substring(2, 4), 16)
          + "."
          + Integer.parseInt(hex.substring(0, 2), 16);
    }
    if (hex.startsWith("0000000000000000FFFF0000")) {
      return address(hex.substring(24)); // IPv4-mapped: the same binding as the IPv4 address
    }
    return switch (hex) {
      case "00000000000000000000000001000000" -> "::1";
      case "00000000000000000000000000000000" -> "::";
      default -> "ipv6:" + hex;
    };
  }

  /** Resident memory of this JVM in MiB, for start-up reports. */
  static long residentMebibytes() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024;
      }
    }
    return -1;
  }
}
