/**
 * Command-line tools that compare two builds of the emulator, JDK only, each a main class in
 * {@code bench/target/benchmarks.jar}: {@code SameReports} (every documented simulator and
 * scenario report the same before and after a change, machine-time fields aside) and
 * {@code SimAb} (the simulator's speed in two builds, alternating in one JVM). They load the
 * emulator jars they are given and must not depend on any module of the project, so that they can
 * judge any two builds, and run unbuilt as single source files too.
 */
package org.fabriclab.bench.tools;
