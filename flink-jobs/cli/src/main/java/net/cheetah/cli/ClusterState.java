package net.cheetah.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What {@code ./cheetah cluster up} started, kept in {@code DATA/cluster/state.json}: each process
 * with the exact command that starts it again, its log, ports, PID and start time; the addresses
 * clients use; the jobs {@code submit} ran and the savepoints {@code down} took. Written after
 * every change (atomically), so that {@code status}, {@code down} and a later {@code up} (which
 * restarts whatever is not alive, with the same command) always see what runs.
 */
final class ClusterState {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /** One process of the cluster; pid 0 once stopped. */
  record Proc(
      String name,
      List<String> command,
      Map<String, String> env,
      String log,
      Map<String, Integer> ports,
      long pid,
      String started) {
    Daemon.Handle handle() {
      return new Daemon.Handle(pid, started);
    }

    boolean alive() {
      return pid > 0 && handle().alive();
    }

    Proc withHandle(Daemon.Handle h) {
      return new Proc(name, command, env, log, ports, h.pid(), h.started());
    }

    Proc stopped() {
      return new Proc(name, command, env, log, ports, 0, "");
    }

    Path logPath() {
      return Path.of(log);
    }
  }

  /** Everything recorded; see the class comment. */
  record Data(
      String bootstrap,
      String restUrl,
      String warehouseUrl,
      int netflowPort,
      List<Proc> processes,
      Map<String, String> jobs,
      Map<String, String> savepoints,
      Map<String, String> kafkaSecurity) {
    /**
     * The kafka.security.* keys of a secure cluster (ClusterSecurity), empty without security (and
     * in a state written before the key existed).
     */
    @Override
    public Map<String, String> kafkaSecurity() {
      return kafkaSecurity == null ? Map.of() : kafkaSecurity;
    }

    /** Java client properties for {@code principal} on this cluster (none without security). */
    Map<String, String> clientSecurity(String principal) {
      return ClusterSecurity.clientProperties(kafkaSecurity(), principal);
    }
  }

  private final Path file;
  private Data data;

  private ClusterState(Path file, Data data) {
    this.file = file;
    this.data = data;
  }

  static Path file(Path clusterDir) {
    return clusterDir.resolve("state.json");
  }

  static Optional<ClusterState> load(Path clusterDir) throws IOException {
    Path f = file(clusterDir);
    if (!Files.exists(f)) {
      return Optional.empty();
    }
    try {
      return Optional.of(new ClusterState(f, JSON.readValue(f.toFile(), Data.class)));
    } catch (IOException e) {
      throw new IOException(
          "cannot read the cluster's state "
              + f
              + " ("
              + e.getMessage()
              + "); stop its processes by the PIDs in it, then remove "
              + clusterDir,
          e);
    }
  }

  static ClusterState create(
      Path clusterDir,
      String bootstrap,
      String restUrl,
      String warehouseUrl,
      int netflowPort,
      Map<String, String> kafkaSecurity)
      throws IOException {
    ClusterState s =
        new ClusterState(
            file(clusterDir),
            new Data(
                bootstrap,
                restUrl,
                warehouseUrl,
                netflowPort,
                new ArrayList<>(),
                new LinkedHashMap<>(),
                new LinkedHashMap<>(),
                new LinkedHashMap<>(kafkaSecurity)));
    s.save();
    return s;
  }

  Data data() {
    return data;
  }

  List<Proc> processes() {
    return List.copyOf(data.processes());
  }

  Optional<Proc> process(String name) {
    return data.processes().stream().filter(p -> p.name().equals(name)).findFirst();
  }

  /** Adds or replaces (by name) a process and saves. */
  synchronized void put(Proc p) throws IOException {
    List<Proc> ps = new ArrayList<>(data.processes());
    ps.removeIf(x -> x.name().equals(p.name()));
    int at = 0;
    while (at < data.processes().size() && !data.processes().get(at).name().equals(p.name())) {
      at++;
    }
    ps.add(Math.min(at, ps.size()), p);
    data =
        new Data(
            data.bootstrap(),
            data.restUrl(),
            data.warehouseUrl(),
            data.netflowPort(),
            ps,
            data.jobs(),
            data.savepoints(),
            data.kafkaSecurity());
    save();
  }

  synchronized void setWarehouseUrl(String url) throws IOException {
    data =
        new Data(
            data.bootstrap(),
            data.restUrl(),
            url,
            data.netflowPort(),
            data.processes(),
            data.jobs(),
            data.savepoints(),
            data.kafkaSecurity());
    save();
  }

  synchronized void setJobs(Map<String, String> jobs) throws IOException {
    data =
        new Data(
            data.bootstrap(),
            data.restUrl(),
            data.warehouseUrl(),
            data.netflowPort(),
            data.processes(),
            new LinkedHashMap<>(jobs),
            data.savepoints(),
            data.kafkaSecurity());
    save();
  }

  synchronized void setSavepoints(Map<String, String> savepoints) throws IOException {
    data =
        new Data(
            data.bootstrap(),
            data.restUrl(),
            data.warehouseUrl(),
            data.netflowPort(),
            data.processes(),
            data.jobs(),
            new LinkedHashMap<>(savepoints),
            data.kafkaSecurity());
    save();
  }

  private void save() throws IOException {
    Files.createDirectories(file.getParent());
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    JSON.writeValue(tmp.toFile(), data);
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
