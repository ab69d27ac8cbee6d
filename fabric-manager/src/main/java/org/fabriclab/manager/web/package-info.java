/**
 * The fabric view in a browser: a page served on the metrics port at {@code /} and the read-only
 * JSON it polls, drawn from a {@link org.fabriclab.manager.web.ViewState} and port readings that
 * {@code org.fabriclab.manager.FabricViewSource} takes from the manager's snapshot and the perf
 * manager's last poll (this package depends on neither, so the packages stay free of cycles).
 */
package org.fabriclab.manager.web;
