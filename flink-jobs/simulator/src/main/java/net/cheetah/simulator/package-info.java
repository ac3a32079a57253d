/**
 * The two-queue port simulator of the threshold study (docs/ARCHITECTURE.md, "Rate threshold R").
 */
package net.cheetah.simulator;
