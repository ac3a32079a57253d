package net.cheetah.cli.simulate;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;

/** Turns bad input into one clear line on stderr and exit status 2, not a stack trace. */
final class CommandErrors {
  private CommandErrors() {}

  static Integer guard(String command, PrintWriter err, Callable<Integer> body) throws Exception {
    try {
      return body.call();
    } catch (IllegalArgumentException | IOException e) {
      err.println(command + ": " + e.getMessage());
      err.flush();
      return 2;
    }
  }
}
