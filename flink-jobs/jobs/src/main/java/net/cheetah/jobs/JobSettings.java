package net.cheetah.jobs;

import java.io.Serializable;
import net.cheetah.config.CheetahConfig.Detection;

/** What a streaming job needs to know: where Kafka is and the detection definitions. */
public record JobSettings(String bootstrap, Detection detection) implements Serializable {}
