package net.cheetah.config;

import java.util.Map;

/** The text of every key after defaults, the file and the overrides; read through {@link Key}s. */
public final class Values {
  private final Map<String, String> text;

  Values(Map<String, String> text) {
    this.text = Map.copyOf(text);
  }

  /** The parsed, checked value of {@code key}; errors name the key. */
  public <T> T get(Key<T> key) {
    String t = text.get(key.name());
    if (t == null) {
      throw new IllegalStateException(key.name() + " is not in CheetahConfig.SECTIONS");
    }
    return key.parse(t);
  }
}
