package net.cheetah.core.flow;

/** A cheetah flow as a (candidate) member of a parallel flowset. */
public record FlowsetMember(
    String flowId, long startMs, long endMs, long bytes, boolean ended, int srcAs, int dstAs) {

  public static FlowsetMember of(CheetahEvent e) {
    return new FlowsetMember(
        e.flowId(),
        e.startMs(),
        e.endMs(),
        e.bytes(),
        e.kind() == CheetahEvent.Kind.END,
        e.srcAs(),
        e.dstAs());
  }
}
