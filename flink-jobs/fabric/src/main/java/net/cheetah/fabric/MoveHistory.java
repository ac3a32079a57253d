package net.cheetah.fabric;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The rule's memory between rounds, for hysteresis (docs/FABRIC.md, "The rule", 5): when each flow
 * was moved, and the paths it left. Entries older than the return hold are forgotten.
 */
public final class MoveHistory implements Serializable {
  /** {@code flow} left {@code path} at {@code atMs}. */
  private record Left(FabricPath path, long atMs) implements Serializable {}

  private final Map<FabricFlow, List<Left>> moves = new HashMap<>();

  /** Whether {@code flow} was moved less than {@code holdMs} before {@code nowMs}. */
  boolean movedWithin(FabricFlow flow, long holdMs, long nowMs) {
    for (Left l : moves.getOrDefault(flow, List.of())) {
      if (nowMs - l.atMs < holdMs) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code flow} left {@code path} less than {@code returnHoldMs} before {@code nowMs}. */
  boolean leftWithin(FabricFlow flow, FabricPath path, long returnHoldMs, long nowMs) {
    for (Left l : moves.getOrDefault(flow, List.of())) {
      if (l.path.equals(path) && nowMs - l.atMs < returnHoldMs) {
        return true;
      }
    }
    return false;
  }

  void moved(FabricFlow flow, FabricPath from, long atMs) {
    moves.computeIfAbsent(flow, f -> new ArrayList<>()).add(new Left(from, atMs));
  }

  /**
   * Takes back {@link #moved}{@code (flow, from, atMs)}: the move was decided but refused (a
   * guardrail), so the flow did not move and nothing may hold it.
   */
  void undo(FabricFlow flow, FabricPath from, long atMs) {
    List<Left> left = moves.get(flow);
    if (left != null && left.remove(new Left(from, atMs)) && left.isEmpty()) {
      moves.remove(flow);
    }
  }

  /** Drops what is {@code returnHoldMs} old or older at {@code nowMs}. */
  void forget(long returnHoldMs, long nowMs) {
    Iterator<Map.Entry<FabricFlow, List<Left>>> it = moves.entrySet().iterator();
    while (it.hasNext()) {
      List<Left> left = it.next().getValue();
      left.removeIf(l -> nowMs - l.atMs >= returnHoldMs);
      if (left.isEmpty()) {
        it.remove();
      }
    }
  }

  /** Flows remembered. */
  public int size() {
    return moves.size();
  }
}
