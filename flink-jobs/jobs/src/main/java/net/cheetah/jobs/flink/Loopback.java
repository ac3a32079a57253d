package net.cheetah.jobs.flink;

import org.apache.flink.configuration.Configuration;

/** Flink settings that keep every listener of a local cluster on 127.0.0.1. */
public final class Loopback {
  private Loopback() {}

  public static Configuration configuration() {
    Configuration c = new Configuration();
    c.setString("jobmanager.bind-host", "127.0.0.1");
    c.setString("jobmanager.rpc.address", "127.0.0.1");
    c.setString("taskmanager.bind-host", "127.0.0.1");
    c.setString("taskmanager.host", "127.0.0.1");
    c.setString("rest.bind-address", "127.0.0.1");
    c.setString("rest.address", "127.0.0.1");
    return c;
  }
}
