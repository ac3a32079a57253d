package net.cheetah.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** TruthCheck on hand-written rows: the truth as the generator writes it, results as stored. */
class TruthCheckTest {
  static final String CHEETAH_HEADER =
      "src,dst,src_port,dst_port,proto,start_ms,end_ms,bytes,peak_interval_bytes";
  static final String A = "198.18.1.10,198.18.2.10,40000,2811,6,1000,61000,3000000000,1500000000";
  static final String B = "198.18.1.11,198.18.2.10,40001,2811,6,2000,62000,2000000000,1000000000";

  /** A and B as the warehouse's CSV: quoted addresses, no header. */
  static final String A_STORED =
      "\"198.18.1.10\",\"198.18.2.10\",40000,2811,6,1000,61000,3000000000,1500000000";

  static final String B_STORED =
      "\"198.18.1.11\",\"198.18.2.10\",40001,2811,6,2000,62000,2000000000,1000000000";

  static final String FLOWSET_HEADER = "src,dst,n_flows,start_ms,end_ms,bytes,duration_s,rate_bps";
  static final String SET = "198.18.1.10,198.18.2.10,2,1000,62000,5000000000,61.0,655737704.9";

  static final String MEMBER_HEADER = "src,dst,flowset_start_ms,src_port,dst_port,proto,start_ms";

  @Test
  void equalRowsMatchWhateverTheQuotingAndHeader() {
    TruthCheck.Outcome o =
        TruthCheck.cheetahs(List.of(CHEETAH_HEADER, A, B), List.of(B_STORED, A_STORED));
    assertThat(o.differences()).isEmpty();
    assertThat(o.ok()).isTrue();
    assertThat(List.of(o.expected(), o.actual(), o.matched())).containsExactly(2, 2, 2);
    assertThat(o.summary("cheetah flows")).isEqualTo("2/2 cheetah flows match the ground truth");
  }

  @Test
  void headerAndBlankLinesAreNotRows() {
    TruthCheck.Outcome o =
        TruthCheck.cheetahs(List.of("", CHEETAH_HEADER, A, "  ", B, ""), List.of(A, "", B, " "));
    assertThat(o.ok()).isTrue();
    assertThat(o.matched()).isEqualTo(2);
  }

  @Test
  void aMissingRowFails() {
    TruthCheck.Outcome o = TruthCheck.cheetahs(List.of(CHEETAH_HEADER, A, B), List.of(A_STORED));
    assertThat(o.ok()).isFalse();
    assertThat(o.differences()).containsExactly("missing: " + B);
    assertThat(o.summary("cheetah flows"))
        .isEqualTo("1/2 cheetah flows match the ground truth (1 stored)");
  }

  @Test
  void anUnexpectedRowFails() {
    TruthCheck.Outcome o =
        TruthCheck.cheetahs(List.of(CHEETAH_HEADER, A), List.of(A_STORED, B_STORED));
    assertThat(o.ok()).isFalse();
    assertThat(o.matched()).isEqualTo(1);
    assertThat(o.differences()).containsExactly("unexpected: " + B);
  }

  @Test
  void aDifferentExactFieldFails() {
    String moreBytes = A.replace(",3000000000,", ",3000000001,");
    String laterEnd = A.replace(",61000,", ",61001,");
    for (String stored : List.of(moreBytes, laterEnd)) {
      TruthCheck.Outcome o = TruthCheck.cheetahs(List.of(CHEETAH_HEADER, A), List.of(stored));
      assertThat(o.ok()).as(stored).isFalse();
      assertThat(o.matched()).isZero();
      assertThat(o.differences()).containsExactly("differs: expected " + A + " got " + stored);
    }
  }

  @Test
  void aDifferentKeyIsOneMissingAndOneUnexpected() {
    String laterStart = A.replace(",1000,", ",1001,");
    TruthCheck.Outcome o = TruthCheck.cheetahs(List.of(A), List.of(laterStart));
    assertThat(o.differences()).containsExactly("missing: " + A, "unexpected: " + laterStart);
  }

  @Test
  void thePeakIsComparedExactly() {
    // The generator apportions the exported records in whole bytes by the same definition: one
    // byte off either way is a difference; 1.5e9 written another way is the same number.
    String oneMore = A.replace(",1500000000", ",1500000001");
    String oneLess = A.replace(",1500000000", ",1499999999");
    String sameValue = A.replace(",1500000000", ",1.5e9");
    assertThat(TruthCheck.cheetahs(List.of(A), List.of(oneMore)).ok()).isFalse();
    assertThat(TruthCheck.cheetahs(List.of(A), List.of(oneLess)).ok()).isFalse();
    assertThat(TruthCheck.cheetahs(List.of(A), List.of(sameValue)).ok()).isTrue();
  }

  @Test
  void aKeyStoredTwiceFailsEvenWhenBothCopiesAreRight() {
    TruthCheck.Outcome o =
        TruthCheck.cheetahs(List.of(CHEETAH_HEADER, A, B), List.of(A_STORED, B_STORED, A_STORED));
    assertThat(o.ok()).isFalse();
    assertThat(o.matched()).isEqualTo(1);
    assertThat(o.actual()).as("stored rows, the copy included").isEqualTo(3);
    assertThat(o.differences())
        .containsExactly("repeated key in the stored rows (2 rows): " + A + " | " + A);
  }

  @Test
  void aKeyStoredTwiceWithDifferentValuesFails() {
    String other = A.replace(",3000000000,", ",1,");
    TruthCheck.Outcome o = TruthCheck.cheetahs(List.of(A), List.of(other, A));
    assertThat(o.ok()).isFalse();
    assertThat(o.differences())
        .containsExactly("repeated key in the stored rows (2 rows): " + other + " | " + A);
  }

  @Test
  void aKeyRepeatedInTheTruthFails() {
    TruthCheck.Outcome o = TruthCheck.cheetahs(List.of(CHEETAH_HEADER, A, A), List.of(A));
    assertThat(o.ok()).isFalse();
    assertThat(o.differences())
        .containsExactly("repeated key in the truth (2 rows): " + A + " | " + A);
  }

  @Test
  void numbersCompareByValueNotByText() {
    // 1e9 = 1000000000 = 1000000000.0, in key columns (start_ms) and exact columns (bytes) alike.
    String truth = "198.18.1.10,198.18.2.10,40000,2811,6,1000000000,1000060000,3000000000,1.5e9";
    String stored = "198.18.1.10,198.18.2.10,40000,2811,6,1e9,1000060000.0,3e9,1500000000";
    TruthCheck.Outcome o = TruthCheck.cheetahs(List.of(truth), List.of(stored));
    assertThat(o.differences()).isEmpty();
    assertThat(o.ok()).isTrue();
  }

  @Test
  void aShortRowIsADifferenceNotACrash() {
    TruthCheck.Outcome o = TruthCheck.cheetahs(List.of(A), List.of(A, "198.18.1.10,198.18.2.10,1"));
    assertThat(o.ok()).isFalse();
    assertThat(o.differences())
        .containsExactly("malformed stored row (3 columns): 198.18.1.10,198.18.2.10,1");
  }

  @Test
  void flowsetsAreKeyedBySrcDstStartAndCompareMembersCountBytesAndEnd() {
    assertThat(TruthCheck.flowsets(List.of(FLOWSET_HEADER, SET), List.of(SET)).ok()).isTrue();
    // duration and rate are derived (and rounded by the warehouse query): not compared.
    String rounded = "198.18.1.10,198.18.2.10,2,1000,62000,5000000000,61,655737705";
    assertThat(TruthCheck.flowsets(List.of(SET), List.of(rounded)).ok()).isTrue();
    String threeFlows = SET.replace(",2,1000,", ",3,1000,");
    TruthCheck.Outcome o = TruthCheck.flowsets(List.of(SET), List.of(threeFlows));
    assertThat(o.differences()).containsExactly("differs: expected " + SET + " got " + threeFlows);
    TruthCheck.Outcome twice = TruthCheck.flowsets(List.of(SET), List.of(SET, SET));
    assertThat(twice.ok()).isFalse();
    assertThat(twice.differences()).hasSize(1).first().asString().startsWith("repeated key");
  }

  @Test
  void membersMatchAsSetsPerFlowset() {
    List<String> truth =
        List.of(
            MEMBER_HEADER,
            "198.18.1.10,198.18.2.10,1000,40000,2811,6,1000",
            "198.18.1.10,198.18.2.10,1000,40001,2811,6,2000",
            "198.18.3.10,198.18.4.10,5000,50000,2811,6,5000");
    List<String> stored =
        List.of(
            "\"198.18.3.10\",\"198.18.4.10\",5e3,50000,2811,6,5000",
            "\"198.18.1.10\",\"198.18.2.10\",1000,40001,2811,6,2000",
            "\"198.18.1.10\",\"198.18.2.10\",1000,40000,2811,6,1000");
    TruthCheck.Outcome o = TruthCheck.members(truth, stored);
    assertThat(o.differences()).isEmpty();
    assertThat(List.of(o.expected(), o.actual(), o.matched())).containsExactly(2, 2, 2);
  }

  @Test
  void aMemberMissingExtraOrRepeatedFails() {
    List<String> truth =
        List.of(
            "198.18.1.10,198.18.2.10,1000,40000,2811,6,1000",
            "198.18.1.10,198.18.2.10,1000,40001,2811,6,2000");
    TruthCheck.Outcome swapped =
        TruthCheck.members(
            truth,
            List.of(
                "198.18.1.10,198.18.2.10,1000,40000,2811,6,1000",
                "198.18.1.10,198.18.2.10,1000,40002,2811,6,2000"));
    assertThat(swapped.ok()).isFalse();
    assertThat(swapped.differences())
        .containsExactly(
            "flowset 198.18.1.10,198.18.2.10,1000: members missing [40001,2811,6,2000], members"
                + " not in the truth [40002,2811,6,2000]");
    TruthCheck.Outcome repeated =
        TruthCheck.members(
            truth,
            List.of(
                "198.18.1.10,198.18.2.10,1000,40000,2811,6,1000",
                "198.18.1.10,198.18.2.10,1000,40001,2811,6,2000",
                "198.18.1.10,198.18.2.10,1000,40001,2811,6,2000"));
    assertThat(repeated.ok()).isFalse();
    assertThat(repeated.differences())
        .contains(
            "repeated member in the stored rows: flowset 198.18.1.10,198.18.2.10,1000"
                + " 40001,2811,6,2000");
    TruthCheck.Outcome elsewhere =
        TruthCheck.members(
            truth,
            List.of(
                "198.18.1.10,198.18.2.10,1000,40000,2811,6,1000",
                "198.18.1.10,198.18.2.10,2000,40001,2811,6,2000"));
    assertThat(elsewhere.matched()).isZero();
    assertThat(elsewhere.differences())
        .containsExactly(
            "flowset 198.18.1.10,198.18.2.10,1000: members missing [40001,2811,6,2000], members"
                + " not in the truth []",
            "unexpected flowset 198.18.1.10,198.18.2.10,2000 with members [40001,2811,6,2000]");
    TruthCheck.Outcome none = TruthCheck.members(truth, List.of());
    assertThat(none.differences())
        .containsExactly(
            "missing flowset 198.18.1.10,198.18.2.10,1000 with members [40000,2811,6,1000,"
                + " 40001,2811,6,2000]");
  }

  @Test
  void aMemberRepeatedInTheTruthFails() {
    String m = "198.18.1.10,198.18.2.10,1000,40000,2811,6,1000";
    TruthCheck.Outcome o = TruthCheck.members(List.of(m, m), List.of(m, m));
    assertThat(o.ok()).isFalse();
    assertThat(o.differences())
        .contains(
            "repeated member in the truth: flowset 198.18.1.10,198.18.2.10,1000 40000,2811,6,1000");
  }
}
