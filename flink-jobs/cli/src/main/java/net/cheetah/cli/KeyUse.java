package net.cheetah.cli;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import net.cheetah.schemas.v1.RedirectAction;
import net.cheetah.schemas.v1.RedirectCommand;

/**
 * How many commands on redirects.commands.v1 still need a signing key (docs/REDIRECTS.md, "Key
 * rotation"), and until when: a key may be retired once none does.
 *
 * <p>A command needs its key while it has not expired and an adapter may still act on it: an add no
 * REMOVE names (an adapter rebuilding its rules from the topic verifies it), or a REMOVE (if it no
 * longer verified, a rebuilding adapter would bring back the rule it ended). Each (command id, key
 * id) counts once: the topic is at least once.
 */
record KeyUse(int commands, long latestExpiryMs) {
  static Map<String, KeyUse> inForce(List<RedirectCommand> commands, long nowMs) {
    Set<String> removed =
        commands.stream()
            .filter(c -> c.getAction() == RedirectAction.REDIRECT_ACTION_REMOVE)
            .map(RedirectCommand::getReplacesCommandId)
            .collect(Collectors.toSet());
    Set<String> seen = new HashSet<>();
    Map<String, KeyUse> use = new LinkedHashMap<>();
    for (RedirectCommand c : commands) {
      boolean remove = c.getAction() == RedirectAction.REDIRECT_ACTION_REMOVE;
      if (c.getExpiresMs() <= nowMs || (!remove && removed.contains(c.getCommandId()))) {
        continue;
      }
      if (!seen.add(c.getCommandId() + "\n" + c.getKeyId())) {
        continue;
      }
      use.merge(
          c.getKeyId(),
          new KeyUse(1, c.getExpiresMs()),
          (a, b) -> new KeyUse(a.commands + 1, Math.max(a.latestExpiryMs, b.latestExpiryMs)));
    }
    return use;
  }
}
