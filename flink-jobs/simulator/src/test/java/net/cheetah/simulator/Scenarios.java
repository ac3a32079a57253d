package net.cheetah.simulator;

import java.util.Optional;

/** Scenarios the tests share: the study's port, short runs. */
final class Scenarios {
  private Scenarios() {}

  static final RecordedBins SILENT = new RecordedBins(new double[] {0}, 0.1, 1500);

  static Scenario study(
      double lambda, double rateBps, double rttS, boolean redirect, double seconds) {
    Optional<TcpCheetah> cheetah =
        rateBps < 0
            ? Optional.empty()
            : Optional.of(TcpCheetah.study(rateBps, rttS, CongestionControl.HTCP));
    return new Scenario(
        PortConfig.study(), ParetoBursts.study(lambda), cheetah, redirect, seconds, 2, 0.1);
  }

  static Scenario backgroundOnly(double lambda, double seconds) {
    return study(lambda, -1, 0.1, false, seconds);
  }

  static Scenario idleLink(TcpCheetah cheetah, double seconds, double warmup) {
    return new Scenario(
        PortConfig.study(), SILENT, Optional.of(cheetah), false, seconds, warmup, 0.1);
  }
}
