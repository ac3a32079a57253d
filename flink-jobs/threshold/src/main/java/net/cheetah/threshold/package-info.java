/**
 * Choosing the rate threshold R per link (ARCHITECTURE.md, "rate threshold R"): formula, table and
 * feedback modes as pure logic with no Flink or Kafka types. Every decision says why.
 */
package net.cheetah.threshold;
