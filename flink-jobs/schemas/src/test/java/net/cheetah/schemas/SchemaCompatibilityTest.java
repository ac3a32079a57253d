package net.cheetah.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Wire compatibility of cheetah.v1 against schemas/compat/cheetah.v1.lock: a field or enum value
 * once published keeps its number and type forever (a breaking change makes a new topic version,
 * docs/ARCHITECTURE.md, "Versioning"). Additions are fine; record them in the lock with {@code
 * ./mvnw -pl flink-jobs/schemas test -Dcheetah.schemas.updateLock=true}.
 */
class SchemaCompatibilityTest {
  private static final String LOCK = "cheetah.v1.lock";

  @Test
  void nothingPublishedChanged() throws IOException {
    Map<String, String> now = SchemaRules.flatten();
    Map<String, String> locked = readLock();
    List<String> broken = new ArrayList<>();
    locked.forEach(
        (k, v) -> {
          if (!now.containsKey(k)) {
            broken.add(
                k
                    + " was removed (was "
                    + v
                    + "); mark it reserved instead, or publish a new topic version");
          } else if (!now.get(k).equals(v)) {
            broken.add(k + " changed from '" + v + "' to '" + now.get(k) + "'");
          }
        });
    assertThat(broken).as("incompatible schema changes").isEmpty();
    if (Boolean.getBoolean("cheetah.schemas.updateLock")) {
      writeLock(now);
    } else {
      assertThat(now.keySet())
          .as(
              "fields added but not recorded: run ./mvnw -pl flink-jobs/schemas test -Dcheetah.schemas.updateLock=true")
          .containsExactlyInAnyOrderElementsOf(locked.keySet());
    }
  }

  private static Map<String, String> readLock() throws IOException {
    Map<String, String> m = new TreeMap<>();
    try (InputStream in = SchemaCompatibilityTest.class.getResourceAsStream("/" + LOCK)) {
      if (in == null) {
        return m;
      }
      for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
        int eq = line.indexOf(" = ");
        if (!line.startsWith("#") && eq > 0) {
          m.put(line.substring(0, eq), line.substring(eq + 3));
        }
      }
    }
    return m;
  }

  private static void writeLock(Map<String, String> now) throws IOException {
    Path lock =
        Path.of(System.getProperty("cheetah.root", "../.."))
            .resolve("schemas/compat")
            .resolve(LOCK);
    StringBuilder b =
        new StringBuilder(
            "# Published cheetah.v1 wire contract: never change or remove a line; add by test run.\n");
    now.forEach((k, v) -> b.append(k).append(" = ").append(v).append('\n'));
    Files.writeString(lock, b);
  }
}
