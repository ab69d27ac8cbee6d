/**
 * JMH benchmarks of the switch core's per-packet decisions (the forwarding path and the arbiter),
 * the proof the style asks of every hot-path optimisation. Nothing depends on this module; run
 * with {@code java -jar bench/target/benchmarks.jar} (see the module's README).
 */
package org.fabriclab.bench;
