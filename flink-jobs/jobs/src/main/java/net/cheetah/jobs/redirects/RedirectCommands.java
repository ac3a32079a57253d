package net.cheetah.jobs.redirects;

import net.cheetah.core.redirect.Decision;
import net.cheetah.core.redirect.RedirectSettings;
import net.cheetah.core.redirect.Rule;
import net.cheetah.jobs.codec.Codec;
import net.cheetah.schemas.v1.RedirectAction;
import net.cheetah.schemas.v1.RedirectCommand;

/** Decisions as cheetah.v1 RedirectCommand messages (docs/REDIRECTS.md). */
public final class RedirectCommands {
  private RedirectCommands() {}

  /** True when the decision goes to redirects.commands.v1 (not refused, not a dry run). */
  public static boolean published(Decision d, RedirectSettings s) {
    return d.kind() != Decision.Kind.REFUSED && !s.dryRun();
  }

  /** The command for a decision, unsigned; {@code nowMs} is the issue time of removals. */
  public static RedirectCommand of(Decision d, RedirectSettings s, long nowMs) {
    Rule r = d.rule();
    boolean remove = d.kind() == Decision.Kind.REMOVE;
    RedirectCommand.Builder b =
        RedirectCommand.newBuilder()
            .setCommandId(d.commandId())
            .setIssuedMs(remove ? nowMs : r.issuedMs())
            // A removal must outlive its rule's expiry, or adapters would refuse it as expired.
            .setExpiresMs(remove ? nowMs + s.ruleTtlMs() : r.expiresMs())
            .setDeviceId(r.deviceId())
            .setSrcPrefix(Codec.addr(r.src()))
            .setSrcPrefixLen(r.prefixLen())
            .setDstPrefix(Codec.addr(r.dst()))
            .setDstPrefixLen(r.prefixLen())
            .setSrcPort(r.srcPort())
            .setDstPort(r.dstPort())
            .setProto(r.proto())
            // A prefix filter stands for many α flows: its reason names the pair and the flow.
            .setCheetahFlowId(r.isPrefixFilter() ? "" : r.cause())
            .setThresholdVersion(r.thresholdVersion())
            .setLinkId(r.link())
            .setDryRun(s.dryRun());
    if (remove) {
      b.setAction(RedirectAction.REDIRECT_ACTION_REMOVE)
          .setReplacesCommandId(r.commandId())
          .setReason(d.detail() + ": " + r.reason());
    } else {
      b.setAction(
              s.dscp() > 0
                  ? RedirectAction.REDIRECT_ACTION_DSCP_MARK
                  : RedirectAction.REDIRECT_ACTION_SCAVENGER)
          .setDscp(s.dscp())
          .setReason(r.reason());
    }
    if (d.kind() == Decision.Kind.REFUSED) {
      b.setRefusal(d.detail());
    }
    return b.build();
  }
}
