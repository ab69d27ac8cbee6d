/**
 * A wall-clock benchmark of the live data plane ({@code emulator bench}): packets per second
 * through one {@code LiveSwitch} against a bare Netty relay of the same frames. The JMH benchmarks
 * of the core itself are in the {@code bench} module. Nothing else may depend on this package.
 */
package org.fabriclab.emulator.bench;
