package net.cheetah.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Style rules for schemas/cheetah/v1 (the rules buf's DEFAULT lint set checks). */
class SchemaLintTest {
  private static final Pattern PASCAL = Pattern.compile("[A-Z][A-Za-z0-9]*");
  private static final Pattern SNAKE = Pattern.compile("[a-z][a-z0-9]*(_[a-z0-9]+)*");
  private static final Pattern UPPER_SNAKE = Pattern.compile("[A-Z][A-Z0-9]*(_[A-Z0-9]+)*");

  @Test
  void everyFileIsInPackageCheetahV1() {
    SchemaRules.files()
        .forEach(f -> assertThat(f.getPackage()).as(f.getName()).isEqualTo("cheetah.v1"));
    SchemaRules.files()
        .forEach(f -> assertThat(f.getName()).as("file path").startsWith("cheetah/v1/"));
  }

  @Test
  void namesFollowTheConventions() {
    for (Descriptor d : SchemaRules.messages()) {
      assertThat(d.getName()).as("message name").matches(PASCAL);
      for (FieldDescriptor f : d.getFields()) {
        assertThat(f.getName()).as("field " + d.getName() + "." + f.getName()).matches(SNAKE);
      }
    }
  }

  @Test
  void enumValuesArePrefixedAndStartWithUnspecified() {
    for (EnumDescriptor e : SchemaRules.enums()) {
      String prefix = e.getName().replaceAll("([a-z0-9])([A-Z])", "$1_$2").toUpperCase() + "_";
      assertThat(e.getValues().get(0).getNumber()).as(e.getName() + " zero value").isZero();
      assertThat(e.getValues().get(0).getName())
          .as(e.getName() + " zero value")
          .isEqualTo(prefix + "UNSPECIFIED");
      e.getValues()
          .forEach(
              v -> assertThat(v.getName()).as(e.getName()).matches(UPPER_SNAKE).startsWith(prefix));
    }
  }

  @Test
  void everyTopicHasItsMessage() {
    var names = SchemaRules.messages().stream().map(Descriptor::getName).toList();
    SchemaRules.TOPICS.forEach((topic, message) -> assertThat(names).as(topic).contains(message));
  }
}
