package net.cheetah.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ComponentsTest {
  private final List<String> log = new ArrayList<>();

  /** Logs its starts and stops; throws where told. */
  private final class Part implements Component {
    final String name;
    final boolean failStart;
    final boolean failStop;
    boolean up;

    Part(String name, boolean failStart, boolean failStop) {
      this.name = name;
      this.failStart = failStart;
      this.failStop = failStop;
    }

    @Override
    public void start() {
      log.add("start " + name);
      if (failStart) {
        throw new IllegalStateException(name + " cannot start");
      }
      up = true;
    }

    @Override
    public boolean running() {
      return up;
    }

    @Override
    public void stop() {
      log.add("stop " + name);
      up = false;
      if (failStop) {
        throw new IllegalStateException(name + " cannot stop");
      }
    }
  }

  private Components of(Part... parts) {
    List<Components.NamedComponent> order = new ArrayList<>();
    for (Part p : parts) {
      order.add(Components.named(p.name, p));
    }
    return new Components(order, (name, e) -> log.add("failed to stop " + name));
  }

  @Test
  void startsInOrderAndStopsInReverse() throws Exception {
    Components c = of(new Part("a", false, false), new Part("b", false, false));
    c.start();
    assertThat(c.running()).isTrue();
    c.stop();
    assertThat(c.running()).isFalse();
    c.stop(); // twice: nothing more
    assertThat(log).containsExactly("start a", "start b", "stop b", "stop a");
  }

  @Test
  void aFailedStartStopsWhatStartedAndRethrows() {
    Components c =
        of(new Part("a", false, false), new Part("b", true, false), new Part("c", false, false));
    assertThatThrownBy(c::start).hasMessage("b cannot start");
    assertThat(log).containsExactly("start a", "start b", "stop b", "stop a");
    assertThat(c.running()).isFalse();
  }

  @Test
  void aFailedStopDoesNotKeepTheOthersRunning() throws Exception {
    Part a = new Part("a", false, false);
    Components c = of(a, new Part("b", false, true), new Part("c", false, false));
    c.start();
    c.close();
    assertThat(log)
        .containsExactly(
            "start a", "start b", "start c", "stop c", "stop b", "failed to stop b", "stop a");
    assertThat(a.running()).isFalse();
  }

  @Test
  void runningIsFalseWhenAPartDies() throws Exception {
    Part b = new Part("b", false, false);
    Components c = of(new Part("a", false, false), b);
    c.start();
    b.up = false; // its process exited on its own
    assertThat(c.running()).isFalse();
  }
}
