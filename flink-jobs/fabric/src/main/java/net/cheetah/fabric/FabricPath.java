package net.cheetah.fabric;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The links a flow crosses from its source's edge switch to its destination's, in order (empty when
 * both hosts are on the same edge switch). Written as its link ids joined by commas.
 */
public record FabricPath(List<Link> links) implements Serializable {
  public FabricPath {
    links = List.copyOf(links);
    for (int i = 1; i < links.size(); i++) {
      if (!links.get(i - 1).to().node().equals(links.get(i).from().node())) {
        throw new IllegalArgumentException(
            "links " + links.get(i - 1) + " and " + links.get(i) + " do not meet at a switch");
      }
    }
  }

  public boolean contains(Link link) {
    return links.contains(link);
  }

  /** The switches crossed, first to last (e.g. e1, a1, c1, a3, e5). */
  public List<String> switches() {
    List<String> s = new ArrayList<>();
    for (Link l : links) {
      if (s.isEmpty()) {
        s.add(l.from().node());
      }
      s.add(l.to().node());
    }
    return s;
  }

  @Override
  public String toString() {
    return links.stream().map(Link::id).collect(Collectors.joining(","));
  }
}
