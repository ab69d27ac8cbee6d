/**
 * File formats: ibnetdiscover/ibsim {@code net} topologies and OpenSM LFT dumps. Parsers take a
 * Reader and a source name; every error is a {@link org.fabriclab.routing.format.FormatException}
 * with file, line and problem. Opening files is the caller's business.
 */
package org.fabriclab.routing.format;
