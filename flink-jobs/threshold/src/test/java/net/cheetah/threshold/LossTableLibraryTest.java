package net.cheetah.threshold;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class LossTableLibraryTest {
  private static final TableParams P = new TableParams(1e-3, 20e6, 0.1, 0.1, 0);

  private static LossTable table(double rate, double b, double rtt) {
    return new LossTable(new BackgroundTag(rate, b), rtt, List.of(new LossTable.Row(100e6, 0)));
  }

  @Test
  void emptyLibraryAsksForATable() {
    TableLookup l = new LossTableLibrary().lookup(new BackgroundTag(200e6, 0.5), P);
    assertThat(l).isInstanceOf(TableLookup.NeedsTable.class);
    assertThat(((TableLookup.NeedsTable) l).reason()).contains("build one");
  }

  @Test
  void tagWithinBothTolerancesMatchesOutsideEitherDoesNot() {
    LossTableLibrary lib = new LossTableLibrary();
    lib.add(table(200e6, 0.5, 0.1));
    assertThat(lib.lookup(new BackgroundTag(215e6, 0.58), P)).isInstanceOf(TableLookup.Found.class);
    assertThat(lib.lookup(new BackgroundTag(225e6, 0.5), P))
        .isInstanceOf(TableLookup.NeedsTable.class);
    assertThat(lib.lookup(new BackgroundTag(200e6, 0.65), P))
        .isInstanceOf(TableLookup.NeedsTable.class);
  }

  @Test
  void onlyTablesOfTheConfiguredRttCount() {
    LossTableLibrary lib = new LossTableLibrary();
    lib.add(table(200e6, 0.5, 0.01));
    assertThat(lib.lookup(new BackgroundTag(200e6, 0.5), P))
        .isInstanceOf(TableLookup.NeedsTable.class);
  }

  @Test
  void nearestWinsAndTiesGoToTheBurstierTag() {
    LossTableLibrary lib = new LossTableLibrary();
    lib.add(table(190e6, 0.5, 0.1)); // distance 0.5 (rate)
    lib.add(table(200e6, 0.48, 0.1)); // distance 0.2 (burstiness)
    TableLookup.Found f = (TableLookup.Found) lib.lookup(new BackgroundTag(200e6, 0.5), P);
    assertThat(f.table().tag().burstiness()).isEqualTo(0.48);

    LossTableLibrary tie = new LossTableLibrary();
    tie.add(table(200e6, 0.45, 0.1));
    tie.add(table(200e6, 0.55, 0.1));
    TableLookup.Found t = (TableLookup.Found) tie.lookup(new BackgroundTag(200e6, 0.5), P);
    assertThat(t.table().tag().burstiness()).isEqualTo(0.55);
  }
}
