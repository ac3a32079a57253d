package net.cheetah.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import net.cheetah.schemas.v1.RedirectAction;
import net.cheetah.schemas.v1.RedirectCommand;
import org.junit.jupiter.api.Test;

/** Which commands still need their key, counted by hand (docs/REDIRECTS.md, "Key rotation"). */
class KeyUseTest {
  static RedirectCommand c(String id, String replaces, long expires, String key) {
    return RedirectCommand.newBuilder()
        .setCommandId(id)
        .setReplacesCommandId(replaces)
        .setAction(
            replaces.isEmpty()
                ? RedirectAction.REDIRECT_ACTION_SCAVENGER
                : RedirectAction.REDIRECT_ACTION_REMOVE)
        .setExpiresMs(expires)
        .setKeyId(key)
        .build();
  }

  @Test
  void addsNotRemovedAndRemovesCountUntilTheyExpireEachOnce() {
    long now = 1_000;
    Map<String, KeyUse> use =
        KeyUse.inForce(
            List.of(
                c("a1", "", 5_000, "old"), // in force
                c("a1", "", 5_000, "old"), // at-least-once repeat: once
                c("a2", "", 9_000, "old"), // ended by r2 below: not counted
                c("r2", "a2", 7_000, "new"), // a REMOVE in force: counted for new
                c("a3", "", 1_000, "old"), // expired at now: not counted
                c("r9", "gone", 900, "old"), // an expired REMOVE
                c("a4", "", 3_000, "new")),
            now);
    assertThat(use)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("old", new KeyUse(1, 5_000), "new", new KeyUse(2, 7_000)));
  }
}
