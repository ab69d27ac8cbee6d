/**
 * The {@code emulator} subcommands, one class each ({@code up}, {@code sim}, {@code sweep},
 * {@code scenario}, {@code train-cc}, {@code bench-forwarding}), and the live-traffic options the daemon's embedded mode shares with
 * {@code up}. Commands parse and check their options (through the shared conventions of
 * {@code org.fabriclab.cli}), run the emulator's libraries, and write a report built as a map by
 * the routing library's one JSON writer; they print only through picocli's writers. No simulation
 * or forwarding logic lives here.
 */
package org.fabriclab.emulator.cli;
