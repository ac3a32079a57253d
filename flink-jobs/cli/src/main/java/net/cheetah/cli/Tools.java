package net.cheetah.cli;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where the external programs are; ./cheetah sets these after installing them. */
record Tools(Path home, Path python, Path goflow2, String nfdump) {
  static Tools fromEnvironment() {
    Path home = Path.of(env("CHEETAH_HOME", ".")).toAbsolutePath().normalize();
    return new Tools(
        home,
        Path.of(env("CHEETAH_PYTHON", home.resolve(".cheetah/venv/bin/python").toString())),
        Path.of(env("CHEETAH_GOFLOW2", home.resolve(".cheetah/bin/cheetah-goflow2").toString())),
        env("CHEETAH_NFDUMP", "nfdump"));
  }

  /** A program ./cheetah setup built into .cheetah/bin (cheetah-probe, cheetah-tracegen, ...). */
  Path built(String program) {
    return require(home.resolve(".cheetah/bin").resolve(program), program);
  }

  Path require(Path p, String what) {
    if (!Files.isExecutable(p)) {
      throw new IllegalStateException(what + " not found at " + p + "; run ./cheetah setup");
    }
    return p;
  }

  private static String env(String k, String dflt) {
    String v = System.getenv(k);
    return v == null || v.isBlank() ? dflt : v;
  }
}
