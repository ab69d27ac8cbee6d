/**
 * The heavy sweep after discovery: LIDs, the engine chain, validation of the routes before any
 * switch is touched, and the versioned two-phase push of the tables. Builds on {@code discovery}
 * and {@code channel}; must not depend on the daemon's state machine ({@code org.fabriclab.manager}),
 * which calls it.
 */
package org.fabriclab.manager.sweep;
