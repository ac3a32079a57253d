package net.cheetah.core.redirect;

/**
 * What the job decided about one rule: add it, remove it, or refuse it. Every decision is recorded;
 * adds and removes are published unless in dry-run mode.
 *
 * @param detail for REMOVE why ("cheetah ended", "rule expired"); for REFUSED the guardrail that
 *     refused and its limit; empty for ADD
 */
public record Decision(Kind kind, Rule rule, String commandId, String detail) {
  public enum Kind {
    ADD,
    REMOVE,
    REFUSED
  }

  public static Decision add(Rule r) {
    return new Decision(Kind.ADD, r, r.commandId(), "");
  }

  /** A remove has its own id, derived from the add it ends (the same whatever the cause). */
  public static Decision remove(Rule r, String why) {
    return new Decision(Kind.REMOVE, r, CommandIds.removal(r.commandId()), why);
  }

  public static Decision refused(Rule r, String guardrail) {
    return new Decision(Kind.REFUSED, r, r.commandId(), guardrail);
  }
}
