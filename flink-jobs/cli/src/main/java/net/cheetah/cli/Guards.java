package net.cheetah.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import net.cheetah.core.flow.Address;
import net.cheetah.core.redirect.CommandIds;
import net.cheetah.jobs.codec.Codec;
import net.cheetah.schemas.v1.RedirectAck;
import net.cheetah.schemas.v1.RedirectAction;
import net.cheetah.schemas.v1.RedirectCommand;

/**
 * Incast guards as redirect commands (docs/REDIRECTS.md, "Incast guards"): the RWND_CAP command
 * that guards one receiver at one device, the REMOVE that ends it, and which guards are in force
 * according to redirects.commands.v1. Pure: no Kafka, no clock, no keys.
 */
final class Guards {
  /** TCP: the guard rewrites the window of the receiver's ACKs. */
  static final int TCP = 6;

  /** A host prefix, as every address of a command: 16 bytes, IPv4 as IPv4-mapped (/32 = /128). */
  static final int HOST = 128;

  private Guards() {}

  /** A guard in force: its signed RWND_CAP command and the adapters' acks of it, oldest first. */
  record Guard(RedirectCommand command, List<RedirectAck> acks) {
    Address receiver() {
      return Codec.addr(command.getDstPrefix());
    }
  }

  /**
   * What caused a guard: the receiver, its buffer, the issue time and the expiry. The issue time
   * makes every {@code guard set} a new command (a guard set again after its expiry, or with a new
   * buffer, is not a duplicate the adapter would skip), while a resend of the same command (a
   * producer retry) keeps its id.
   */
  static String cause(Address receiver, long bufferBytes, long issuedMs, long expiresMs) {
    return "guard "
        + receiver
        + " buffer "
        + bufferBytes
        + " issued "
        + issuedMs
        + " expires "
        + expiresMs;
  }

  /**
   * The unsigned RWND_CAP command guarding {@code receiver} at {@code device}: dst the receiver's
   * host prefix, no source, no ports, TCP; {@code rwnd_bytes} the port buffer whose 75 % its
   * senders share (0: the adapter reads the bottleneck queue's own limit).
   */
  static RedirectCommand set(
      String device, Address receiver, long bufferBytes, long issuedMs, long ttlMs, String by) {
    if (device.isBlank()) {
      throw new IllegalArgumentException("--device must name the adapter's device, e.g. tor-1/r1");
    }
    if (bufferBytes < 0) {
      throw new IllegalArgumentException(
          "--buffer must be >= 0 bytes (0: the adapter reads the queue's limit), got "
              + bufferBytes);
    }
    long expiresMs = issuedMs + ttlMs;
    return RedirectCommand.newBuilder()
        .setCommandId(CommandIds.add(device, cause(receiver, bufferBytes, issuedMs, expiresMs)))
        .setIssuedMs(issuedMs)
        .setExpiresMs(expiresMs)
        .setDeviceId(device)
        .setDstPrefix(Codec.addr(receiver))
        .setDstPrefixLen(HOST)
        .setProto(TCP)
        .setAction(RedirectAction.REDIRECT_ACTION_RWND_CAP)
        .setRwndBytes(bufferBytes)
        .setReason(
            "incast guard: receiver "
                + receiver
                + ", 75 % of a "
                + (bufferBytes == 0
                    ? "port buffer of the queue's limit"
                    : bufferBytes + " B port buffer")
                + " shared among its senders; set by "
                + by)
        .build();
  }

  /**
   * The unsigned REMOVE ending {@code add} (its match repeated, docs/REDIRECTS.md). It expires with
   * the rule it ends: past that the adapters have dropped the rule by themselves.
   */
  static RedirectCommand removal(RedirectCommand add, long nowMs, String why) {
    return add.toBuilder()
        .clearHmac()
        .clearKeyId()
        .setCommandId(CommandIds.removal(add.getCommandId()))
        .setIssuedMs(nowMs)
        .setAction(RedirectAction.REDIRECT_ACTION_REMOVE)
        .setRwndBytes(0)
        .setReplacesCommandId(add.getCommandId())
        .setReason(why + ": " + add.getReason())
        .build();
  }

  /**
   * The guards in force at {@code nowMs} by the adapters' own rule (docs/REDIRECTS.md, "Delivery"):
   * RWND_CAP commands (each id once: the topic is at-least-once) that no REMOVE on the topic names,
   * before or after them, and that have not expired; in topic order, with their acks.
   */
  static List<Guard> inForce(List<RedirectCommand> commands, List<RedirectAck> acks, long nowMs) {
    Set<String> removed =
        commands.stream()
            .filter(c -> c.getAction() == RedirectAction.REDIRECT_ACTION_REMOVE)
            .map(RedirectCommand::getReplacesCommandId)
            .collect(Collectors.toSet());
    Map<String, RedirectCommand> guards = new LinkedHashMap<>();
    for (RedirectCommand c : commands) {
      if (c.getAction() == RedirectAction.REDIRECT_ACTION_RWND_CAP
          && !removed.contains(c.getCommandId())
          && c.getExpiresMs() > nowMs) {
        guards.putIfAbsent(c.getCommandId(), c);
      }
    }
    Map<String, List<RedirectAck>> byCommand = new LinkedHashMap<>();
    for (RedirectAck a : acks) {
      byCommand.computeIfAbsent(a.getCommandId(), id -> new ArrayList<>()).add(a);
    }
    return guards.values().stream()
        .map(c -> new Guard(c, byCommand.getOrDefault(c.getCommandId(), List.of())))
        .toList();
  }

  /** The guards of {@code receiver} at {@code device} among {@code guards}. */
  static List<Guard> of(List<Guard> guards, String device, Address receiver) {
    return guards.stream()
        .filter(g -> g.command().getDeviceId().equals(device) && g.receiver().equals(receiver))
        .toList();
  }

  /**
   * The newest ack of each adapter for a guard, e.g. "APPLIED (incast)", "REJECTED (incast:
   * unsupported_action ...)"; "no ack yet" when none answered.
   */
  static String ackSummary(List<RedirectAck> acks) {
    Map<String, RedirectAck> newest = new LinkedHashMap<>();
    for (RedirectAck a : acks) {
      newest.merge(
          a.getAdapter(), a, (old, neu) -> neu.getAckedMs() >= old.getAckedMs() ? neu : old);
    }
    if (newest.isEmpty()) {
      return "no ack yet";
    }
    return newest.values().stream()
        .map(
            a ->
                a.getStatus().name().replace("ACK_STATUS_", "")
                    + " ("
                    + (a.getAdapter().isEmpty() ? "?" : a.getAdapter())
                    + (a.getDetail().isEmpty() ? "" : ": " + a.getDetail())
                    + ")")
        .collect(Collectors.joining(", "));
  }
}
