/**
 * File formats: ibnetdiscover/ibsim {@code net} topologies and OpenSM LFT dumps. Parsers take a
 * Reader and a source name; every error is a {@link org.fabriclab.routing.format.FormatException}
 * with file, line and problem. The one binary format, {@link org.fabriclab.routing.format.QTableSnapshot}
 * (a Dragonfly's learnt Q-tables), takes and gives bytes, and refuses with its own
 * {@link org.fabriclab.routing.format.QTableSnapshotException} (file, problem, corrupt or
 * mismatched). Opening files is the caller's business.
 */
package org.fabriclab.routing.format;
