package net.cheetah.jobs.thresholds;

import static org.assertj.core.api.Assertions.assertThat;

import net.cheetah.threshold.BackgroundTag;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What the threshold job keeps in state or sends between operators is serialised without Kryo. */
class ThresholdTypesTest {
  @ParameterizedTest
  @ValueSource(
      classes = {
        ThresholdInput.class,
        TableRequest.class,
        BuiltTable.class,
        ThresholdState.class,
        BackgroundTag.class
      })
  void isAFlinkPojo(Class<?> type) {
    assertThat(TypeInformation.of(type)).isInstanceOf(PojoTypeInfo.class);
  }
}
