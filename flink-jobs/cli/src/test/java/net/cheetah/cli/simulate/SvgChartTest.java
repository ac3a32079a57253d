package net.cheetah.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

class SvgChartTest {

  @Test
  void rendersWellFormedSvgWithOnePointPerValueAndEscapedText() throws Exception {
    SvgChart.Series a =
        new SvgChart.Series(
            "RTT 10 ms",
            "#1f77b4",
            new double[] {10, 100, 600},
            new double[] {0.8, 0.25, 0.1},
            new double[] {0.03, 0.01, 0});
    SvgChart.Series b =
        new SvgChart.Series(
            "a < b & c",
            "#d62728",
            new double[] {10, 600},
            new double[] {0.5, 0.2},
            new double[] {0, 0});
    String svg = SvgChart.render("loss", "λ", "CoV", true, List.of(a, b));
    Document doc =
        DocumentBuilderFactory.newInstance()
            .newDocumentBuilder()
            .parse(
                new java.io.ByteArrayInputStream(
                    svg.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    assertThat(doc.getDocumentElement().getTagName()).isEqualTo("svg");
    assertThat(doc.getElementsByTagName("circle").getLength()).isEqualTo(5);
    assertThat(doc.getElementsByTagName("path").getLength()).isEqualTo(2);
    assertThat(svg).contains("a &lt; b &amp; c");
  }

  @Test
  void ticksAreRoundNumbersCoveringTheRange() {
    assertThat(SvgChart.linearTicks(0, 0.83))
        .containsExactly(0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0);
  }
}
