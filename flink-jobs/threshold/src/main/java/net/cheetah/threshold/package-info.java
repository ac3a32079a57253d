/**
 * Choosing the rate threshold R per link (docs/ARCHITECTURE.md, "Rate threshold R"): formula, table
 * and feedback modes as pure logic with no Flink or Kafka types. Every decision says why.
 */
package net.cheetah.threshold;
