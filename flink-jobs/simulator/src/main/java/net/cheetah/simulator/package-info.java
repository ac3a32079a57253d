/** The two-queue port simulator of the threshold study (ARCHITECTURE.md, "rate threshold R"). */
package net.cheetah.simulator;
