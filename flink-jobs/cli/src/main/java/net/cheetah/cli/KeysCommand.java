package net.cheetah.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import net.cheetah.config.CheetahConfig;
import net.cheetah.core.Topics;
import net.cheetah.jobs.ConfigOptions;
import net.cheetah.jobs.JobSettings;
import net.cheetah.jobs.flink.KafkaIO;
import net.cheetah.jobs.redirects.RedirectKeys;
import net.cheetah.schemas.v1.RedirectCommand;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code ./cheetah keys}: the redirect signing keys file and its rotation (docs/REDIRECTS.md, "Key
 * rotation"). Secrets are never printed: only key ids.
 */
@Command(
    name = "keys",
    mixinStandardHelpOptions = true,
    description = {
      "The redirect signing keys (docs/REDIRECTS.md, \"Key rotation\"): a JSON file",
      "{\"active\": ID, \"keys\": {ID: HEX}} shared by the redirect job (signs with the",
      "active key, re-reads the file within a second of a change: no restart) and",
      "the adapters (accept every listed key). Default file: redirects.keys-file,",
      "else DATA/keys/redirects.json. Each change replaces the file at once (mode",
      "0600). Secrets are never printed.",
      "  ./cheetah keys list",
      "  ./cheetah keys rotate               # one shared file: add + activate",
      "  ./cheetah keys retire OLD-ID        # after its commands have expired",
      "With one file per host: keys add on one, copy the file to every verifier,",
      "then keys activate ID where the job runs.",
      "Exit status: 0 done; 2 refused or an error (then the file is unchanged)."
    },
    subcommands = {
      KeysCommand.ListKeys.class,
      KeysCommand.AddKey.class,
      KeysCommand.ActivateKey.class,
      KeysCommand.RetireKey.class,
      KeysCommand.RotateKeys.class
    })
final class KeysCommand implements Callable<Integer> {
  /** Reads redirects.commands.v1 as the redirect authority, whose keys these are. */
  static final String PRINCIPAL = GuardCommand.PRINCIPAL;

  private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,63}");

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return 2;
  }

  /** What every subcommand needs: the configuration and the keys file. */
  abstract static class Base implements Callable<Integer> {
    @Option(
        names = "--keys",
        paramLabel = "FILE",
        description =
            "The keys file (default: redirects.keys-file if set, else the stack's"
                + " DATA/keys/redirects.json).")
    Path keys;

    @Mixin ConfigOptions config;

    @Spec CommandSpec spec;

    PrintWriter out() {
      return spec.commandLine().getOut();
    }

    PrintWriter err() {
      return spec.commandLine().getErr();
    }

    Path file(CheetahConfig cfg) {
      Path f = keys != null ? keys : JobSettings.redirectKeysFile(cfg, cfg.dataDir());
      if (!Files.exists(f)) {
        throw new IllegalArgumentException(
            "no redirect keys file at "
                + f
                + (keys != null
                    ? ""
                    : ": the stack creates it at its first start (./cheetah up); or set"
                        + " redirects.keys-file, or pass --keys FILE"));
      }
      return f;
    }
  }

  /** A subcommand that reads redirects.commands.v1. */
  abstract static class WithBroker extends Base {
    @Mixin RedirectBroker.Bootstrap bootstrap;

    /** Commands in force per key id, read from redirects.commands.v1 now. */
    Map<String, KeyUse> use(CheetahConfig cfg) {
      KafkaIO.Access b = bootstrap.connect(cfg, PRINCIPAL);
      List<RedirectCommand> commands =
          RedirectBroker.read(b, Topics.REDIRECTS_COMMANDS, RedirectCommand::parseFrom, "keys");
      return KeyUse.inForce(commands, System.currentTimeMillis());
    }
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = {
        "Print the key ids, the active one, and the commands in force per key.",
        "Per key: how many commands in force on redirects.commands.v1 carry it (not",
        "removed, not expired; an unexpired REMOVE counts too) and when the last of",
        "them expires. Without a broker, the counts show as \"?\"."
      })
  static final class ListKeys extends WithBroker {
    @Override
    public Integer call() {
      CheetahConfig cfg = config.load();
      Path f = file(cfg);
      RedirectKeys k = RedirectKeys.load(f);
      Map<String, KeyUse> use = null;
      String noBroker = "";
      try {
        use = use(cfg);
      } catch (IllegalStateException e) {
        noBroker = e.getMessage();
      }
      PrintWriter o = out();
      o.println("keys file " + f);
      String format = "%-28s %-7s %-9s %s%n";
      o.printf(Locale.ROOT, format, "KEY ID", "ACTIVE", "IN FORCE", "LAST EXPIRES");
      for (String id : k.ids()) {
        KeyUse u = use == null ? null : use.getOrDefault(id, new KeyUse(0, 0));
        o.printf(
            Locale.ROOT,
            format,
            id,
            id.equals(k.active()) ? "active" : "",
            u == null ? "?" : String.valueOf(u.commands()),
            u == null ? "?" : u.commands() == 0 ? "-" : GuardCommand.time(u.latestExpiryMs()));
      }
      if (use == null) {
        o.println("commands in force: unknown (" + noBroker + ")");
      } else {
        use.forEach(
            (id, u) -> {
              if (!k.ids().contains(id)) {
                o.printf(
                    Locale.ROOT,
                    "%d command(s) in force carry key '%s', which this file does not list"
                        + " (verifiers with this file refuse them); the last expires %s%n",
                    u.commands(),
                    id,
                    GuardCommand.time(u.latestExpiryMs()));
              }
            });
      }
      o.flush();
      return 0;
    }
  }

  @Command(
      name = "add",
      mixinStandardHelpOptions = true,
      description = {
        "Add a fresh random key (32 bytes), not active.",
        "Verifiers accept it once they have the file; the job keeps signing with the",
        "active key. With one file per host, copy the file to every verifier before",
        "./cheetah keys activate."
      })
  static final class AddKey extends Base {
    @Option(
        names = "--id",
        paramLabel = "ID",
        description = "The new key id (default: k and the UTC time, e.g. k2026-11-26T05-30-00Z).")
    String id;

    @Override
    public Integer call() throws IOException {
      CheetahConfig cfg = config.load();
      Path f = file(cfg);
      String newId = add(f, id, false);
      out().printf(Locale.ROOT, "added key %s to %s (not active)%n", newId, f);
      out().println("next: give the file to every verifier, then ./cheetah keys activate " + newId);
      out().flush();
      return 0;
    }
  }

  @Command(
      name = "activate",
      mixinStandardHelpOptions = true,
      description = {
        "Make a listed key the one that signs.",
        "The redirect job signs with it from its next look at the file (at most a",
        "second later, no restart); ./cheetah guard at once. Every verifier must list",
        "it first."
      })
  static final class ActivateKey extends Base {
    @Parameters(paramLabel = "ID", description = "The key id to sign with.")
    String id;

    @Override
    public Integer call() throws IOException {
      CheetahConfig cfg = config.load();
      Path f = file(cfg);
      activate(f, id);
      out().printf(Locale.ROOT, "key %s is active in %s%n", id, f);
      out().flush();
      return 0;
    }
  }

  @Command(
      name = "rotate",
      mixinStandardHelpOptions = true,
      description = {
        "add + activate: a fresh key signs (one file shared by job and verifiers).",
        "The old keys stay listed, so commands signed with them still verify until",
        "you retire them."
      })
  static final class RotateKeys extends Base {
    @Option(names = "--id", paramLabel = "ID", description = "The new key id (as for add).")
    String id;

    @Override
    public Integer call() throws IOException {
      CheetahConfig cfg = config.load();
      Path f = file(cfg);
      String old = RedirectKeys.load(f).active();
      String newId = add(f, id, true);
      out().printf(Locale.ROOT, "key %s is active in %s (was %s, still listed)%n", newId, f, old);
      out()
          .println(
              "retire the old key once its commands have expired: ./cheetah keys retire " + old);
      out().flush();
      return 0;
    }
  }

  @Command(
      name = "retire",
      mixinStandardHelpOptions = true,
      description = {
        "Drop a key once no command in force carries it.",
        "Verifiers with the file then refuse its commands (unknown key). Refused for",
        "the active key, and while any command in force on redirects.commands.v1 (not",
        "removed, not expired; an unexpired REMOVE too) carries it: retire it after",
        "the last of them expires (keys list shows when)."
      })
  static final class RetireKey extends WithBroker {
    @Parameters(paramLabel = "ID", description = "The key id to drop.")
    String id;

    @Option(
        names = "--force",
        description =
            "Retire it even while commands carry it (or when no broker answers): adapters"
                + " then refuse those commands, and one rebuilding its rules drops them.")
    boolean force;

    @Override
    public Integer call() throws IOException {
      CheetahConfig cfg = config.load();
      Path f = file(cfg);
      RedirectKeys k = RedirectKeys.load(f);
      RedirectKeys fewer = k.without(id); // refuses an unknown or the active key first
      KeyUse u;
      try {
        u = use(cfg).getOrDefault(id, new KeyUse(0, 0));
      } catch (IllegalStateException e) {
        if (!force) {
          throw new IllegalStateException(
              e.getMessage()
                  + "; retire needs the broker to check that no command in force carries key "
                  + id
                  + " (--force skips the check)");
        }
        err().println("keys retire: warning: not checked (" + e.getMessage() + ")");
        u = new KeyUse(0, 0);
      }
      if (u.commands() > 0) {
        String what =
            u.commands()
                + " command(s) in force on "
                + Topics.REDIRECTS_COMMANDS
                + " carry key "
                + id
                + ", the last expiring "
                + GuardCommand.time(u.latestExpiryMs());
        if (!force) {
          throw new IllegalStateException(
              "refused: "
                  + what
                  + "; retire it after that (verifiers would refuse them as signed with an"
                  + " unknown key), or pass --force; "
                  + f
                  + " is unchanged");
        }
        err().println("keys retire: warning: --force: " + what + "; verifiers will refuse them");
      }
      fewer.write(f);
      out().printf(Locale.ROOT, "retired key %s from %s (active: %s)%n", id, f, k.active());
      out().flush();
      return 0;
    }
  }

  /**
   * Adds a fresh key to {@code f}, made active if {@code activate} (one rewrite); its id is {@code
   * id} or one from the UTC time.
   */
  static String add(Path f, String id, boolean activate) throws IOException {
    String newId =
        id != null
            ? id.trim()
            : "k"
                + ZonedDateTime.now(ZoneOffset.UTC)
                    .format(DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH-mm-ss'Z'"));
    if (!ID.matcher(newId).matches()) {
      throw new IllegalArgumentException(
          "--id must be 1 to 64 letters, digits, '.', '_', ':' or '-' (starting with a letter or"
              + " digit), got '"
              + id
              + "'");
    }
    RedirectKeys more = RedirectKeys.load(f).with(newId, RedirectKeys.freshSecret());
    (activate ? more.activate(newId) : more).write(f);
    return newId;
  }

  static void activate(Path f, String id) throws IOException {
    RedirectKeys.load(f).activate(id).write(f);
  }
}
