package net.cheetah.fabric;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.List;
import net.cheetah.core.flow.Address;
import net.cheetah.core.redirect.CommandIds;
import net.cheetah.schemas.v1.RedirectAction;
import net.cheetah.schemas.v1.RedirectCommand;

/**
 * A {@link Reroute} as a redirect command (docs/FABRIC.md, "Reroute commands"; docs/REDIRECTS.md):
 * action {@code REROUTE}, the flow's 5-tuple as the match (host prefixes), {@code path} the new
 * path's link ids, {@code device_id} the fabric whose adapter applies it. Unsigned: the signer adds
 * {@code key_id} and {@code hmac} like for every command.
 */
public final class RerouteCommands {
  private RerouteCommands() {}

  /**
   * The command moving {@code r}'s flow, issued at {@code issuedMs} and expiring {@code ttlMs}
   * later. Its id is a hash of the device, the flow, the new path and the issue time: the same
   * decision always gets the same id, a later move of the same flow a new one.
   */
  public static RedirectCommand add(Reroute r, String device, long issuedMs, long ttlMs) {
    if (ttlMs < 1) {
      throw new IllegalArgumentException("a reroute must expire: ttl " + ttlMs + " ms");
    }
    FabricFlow f = r.flow();
    String cause = "reroute " + f + " to " + r.to() + " issued " + issuedMs;
    return RedirectCommand.newBuilder()
        .setCommandId(CommandIds.add(device, cause))
        .setIssuedMs(issuedMs)
        .setExpiresMs(issuedMs + ttlMs)
        .setDeviceId(device)
        .setSrcPrefix(bytes(f.src()))
        .setSrcPrefixLen(128)
        .setDstPrefix(bytes(f.dst()))
        .setDstPrefixLen(128)
        .setSrcPort(f.srcPort())
        .setDstPort(f.dstPort())
        .setProto(f.proto())
        .setAction(RedirectAction.REDIRECT_ACTION_REROUTE)
        .setPath(r.to().toString())
        .setLinkId(r.link())
        .setReason(r.reason())
        .build();
  }

  /** The {@code REMOVE} ending {@code add} (the flow returns to ECMP): same match, same expiry. */
  public static RedirectCommand remove(RedirectCommand add, long issuedMs, String reason) {
    return add.toBuilder()
        .setCommandId(CommandIds.removal(add.getCommandId()))
        .setIssuedMs(issuedMs)
        .setAction(RedirectAction.REDIRECT_ACTION_REMOVE)
        .setReplacesCommandId(add.getCommandId())
        .setReason(reason)
        .clearKeyId()
        .clearHmac()
        .build();
  }

  /**
   * The path a {@code REROUTE} command names, checked against {@code fabric}: every link exists,
   * they follow each other, and together they are one of the equal-cost paths between the edge
   * switches of the flow's two hosts.
   */
  public static FabricPath pathOf(RedirectCommand c, Fabric fabric) {
    if (c.getAction() != RedirectAction.REDIRECT_ACTION_REROUTE) {
      throw new IllegalArgumentException(
          "command " + c.getCommandId() + " is " + c.getAction() + ", not a reroute");
    }
    List<Link> links = new ArrayList<>();
    for (String id : c.getPath().split(",", -1)) {
      links.add(
          fabric
              .link(id.trim())
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "command "
                              + c.getCommandId()
                              + " names link '"
                              + id
                              + "', which "
                              + fabric.name()
                              + " does not have")));
    }
    FabricPath path = new FabricPath(links);
    Host src = host(c, c.getSrcPrefix(), fabric);
    Host dst = host(c, c.getDstPrefix(), fabric);
    if (!fabric.paths(src.edge().node(), dst.edge().node()).contains(path)) {
      throw new IllegalArgumentException(
          "command "
              + c.getCommandId()
              + ": "
              + path
              + " is not an equal-cost path from "
              + src.name()
              + " to "
              + dst.name());
    }
    return path;
  }

  private static Host host(RedirectCommand c, ByteString address, Fabric fabric) {
    Address a = Address.fromBytes(address.toByteArray());
    return fabric
        .hostAt(a)
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "command "
                        + c.getCommandId()
                        + ": "
                        + a
                        + " is not a host of "
                        + fabric.name()));
  }

  private static ByteString bytes(Address a) {
    return ByteString.copyFrom(a.toBytes16());
  }
}
