package net.cheetah.config;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import net.cheetah.config.CheetahConfig.ConfigException;

/**
 * One configuration key, declared once beside the record it fills: its name, its default (as it
 * would be written in a properties file), how its text is parsed, the rule its value obeys, and its
 * meaning in one line. Loading, {@code ./cheetah config} and the README's table all read these.
 *
 * @param rule the rule every value obeys (also checked by the record's constructor, {@link
 *     #require}); {@code ruleText} says it, e.g. "> 0", or is empty when any parsed value is fine
 */
public record Key<T>(
    String name,
    String defaultValue,
    Function<String, T> parser,
    String typeText,
    Predicate<T> rule,
    String ruleText,
    String doc) {

  /** A whole number (underscores allowed: 3_600_000). */
  public static Key<Long> whole(String name, String dflt, String doc) {
    return new Key<>(name, dflt, Key::parseLong, "a whole number", v -> true, "", doc);
  }

  /** A whole number that fits an int. */
  public static Key<Integer> integer(String name, String dflt, String doc) {
    return new Key<>(
        name,
        dflt,
        s -> {
          long v = parseLong(s);
          if (v != (int) v) {
            throw new NumberFormatException(s);
          }
          return (int) v;
        },
        "a whole number",
        v -> true,
        "",
        doc);
  }

  /** A byte count: a plain integer or an exact decimal exponent such as 1e9. */
  public static Key<Long> bytes(String name, String dflt, String doc) {
    return new Key<>(
        name,
        dflt,
        s -> {
          try {
            return new BigDecimal(s.replace("_", "")).longValueExact();
          } catch (ArithmeticException e) {
            throw new NumberFormatException(s);
          }
        },
        "a whole number of bytes (e.g. 1000000000 or 1e9)",
        v -> true,
        "",
        doc);
  }

  /** A number (e.g. 1e9). */
  public static Key<Double> number(String name, String dflt, String doc) {
    return new Key<>(
        name,
        dflt,
        s -> {
          double v = Double.parseDouble(s.replace("_", ""));
          if (!Double.isFinite(v)) {
            throw new NumberFormatException(s);
          }
          return v;
        },
        "a number (e.g. 1e9)",
        v -> true,
        "",
        doc);
  }

  /** A TCP/UDP port on 127.0.0.1; 0 = any free port. */
  public static Key<Integer> port(String name, String dflt, String doc) {
    return integer(name, dflt, doc).check(p -> p >= 0 && p <= 65535, "a port in 0..65535");
  }

  public static Key<Boolean> bool(String name, String dflt, String doc) {
    return new Key<>(
        name,
        dflt,
        s -> {
          String l = s.toLowerCase(Locale.ROOT);
          if (!l.equals("true") && !l.equals("false")) {
            throw new NumberFormatException(s);
          }
          return l.equals("true");
        },
        "true or false",
        v -> true,
        "",
        doc);
  }

  public static Key<String> text(String name, String dflt, String doc) {
    return new Key<>(name, dflt, s -> s, "text", v -> true, "", doc);
  }

  /**
   * A value {@code parser} reads; it throws NumberFormatException for text it cannot read (the
   * error then says the key takes {@code typeText}), or an IllegalArgumentException explaining
   * more.
   */
  public static <T> Key<T> of(
      String name, String dflt, Function<String, T> parser, String typeText, String doc) {
    return new Key<>(name, dflt, parser, typeText, v -> true, "", doc);
  }

  /**
   * One of {@code allowed}, written in lower case (FEEDBACK_BASE is "feedback-base"); the error
   * lists the allowed values.
   */
  @SafeVarargs
  public static <E extends Enum<E>> Key<E> choice(String name, E dflt, String doc, E... allowed) {
    Set<E> ok = Set.of(allowed);
    String names =
        Arrays.stream(allowed).map(Key::written).collect(Collectors.joining(", ", "one of ", ""));
    Class<E> type = dflt.getDeclaringClass();
    return new Key<>(
        name,
        written(dflt),
        s -> {
          for (E e : type.getEnumConstants()) {
            if (written(e).equals(s.toLowerCase(Locale.ROOT))) {
              return e;
            }
          }
          throw new IllegalArgumentException(); // no explanation: the allowed values say it
        },
        names,
        ok::contains,
        names,
        doc);
  }

  /** How an enum value is written in configuration. */
  public static String written(Enum<?> e) {
    return e.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** This key with {@code rule} added; {@code says} completes "must be ...". */
  public Key<T> check(Predicate<T> more, String says) {
    Predicate<T> before = rule;
    String text = ruleText.isEmpty() ? says : ruleText + ", " + says;
    return new Key<>(
        name, defaultValue, parser, typeText, v -> before.test(v) && more.test(v), text, doc);
  }

  /**
   * The value of {@code text}, or an error naming the key: what it takes, or the parser's own
   * explanation (an IllegalArgumentException whose message continues the sentence after the key,
   * e.g. "takes fractions of C in (0, 1], got 1.5").
   */
  public T parse(String text) {
    T v;
    try {
      v = parser.apply(text.trim());
    } catch (NumberFormatException e) {
      throw new ConfigException(name + " must be " + typeText + ", got '" + text + "'");
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          e.getMessage() == null
              ? name + " must be " + typeText + ", got '" + text + "'"
              : name + " " + e.getMessage());
    }
    return require(v);
  }

  /** {@code value} if it obeys the key's rule; else an error naming the key and the rule. */
  public T require(T value) {
    if (!rule.test(value)) {
      throw new ConfigException(
          name
              + " must be "
              + ruleText
              + ", got "
              + (value instanceof Enum<?> e ? "'" + written(e) + "'" : value));
    }
    return value;
  }

  private static long parseLong(String s) {
    return Long.parseLong(s.replace("_", ""));
  }

  @Override
  public String toString() {
    return name;
  }
}
