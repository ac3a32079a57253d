package net.cheetah.cli;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads one flat JSON object of string and number values (the collector's stdout lines). Nested
 * values, arrays and malformed text are refused with an IllegalArgumentException.
 */
final class FlatJson {
  private final String s;
  private int i;

  private FlatJson(String s) {
    this.s = s;
  }

  static Map<String, String> parse(String text) {
    return new FlatJson(text).object();
  }

  private Map<String, String> object() {
    Map<String, String> m = new LinkedHashMap<>();
    ws();
    expect('{');
    ws();
    if (peek() == '}') {
      i++;
      return m;
    }
    while (true) {
      ws();
      String k = string();
      ws();
      expect(':');
      ws();
      m.put(k, value());
      ws();
      char c = next();
      if (c == '}') {
        ws();
        if (i != s.length()) {
          throw new IllegalArgumentException("text after the object at " + i);
        }
        return m;
      }
      if (c != ',') {
        throw new IllegalArgumentException("expected ',' or '}' at " + (i - 1));
      }
    }
  }

  private String value() {
    char c = peek();
    if (c == '"') {
      return string();
    }
    int start = i;
    while (i < s.length() && "+-0123456789.eEtruefalsn".indexOf(s.charAt(i)) >= 0) {
      i++;
    }
    if (start == i) {
      throw new IllegalArgumentException("unsupported value at " + i);
    }
    return s.substring(start, i);
  }

  private String string() {
    expect('"');
    StringBuilder b = new StringBuilder();
    while (true) {
      char c = next();
      if (c == '"') {
        return b.toString();
      }
      if (c != '\\') {
        b.append(c);
        continue;
      }
      char e = next();
      switch (e) {
        case '"', '\\', '/' -> b.append(e);
        case 'b' -> b.append('\b');
        case 'f' -> b.append('\f');
        case 'n' -> b.append('\n');
        case 'r' -> b.append('\r');
        case 't' -> b.append('\t');
        case 'u' -> {
          if (i + 4 > s.length()) {
            throw new IllegalArgumentException("truncated \\u escape");
          }
          b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
          i += 4;
        }
        default -> throw new IllegalArgumentException("bad escape \\" + e);
      }
    }
  }

  private void ws() {
    while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
      i++;
    }
  }

  private char peek() {
    if (i >= s.length()) {
      throw new IllegalArgumentException("unexpected end of text");
    }
    return s.charAt(i);
  }

  private char next() {
    char c = peek();
    i++;
    return c;
  }

  private void expect(char c) {
    if (next() != c) {
      throw new IllegalArgumentException("expected '" + c + "' at " + (i - 1));
    }
  }
}
