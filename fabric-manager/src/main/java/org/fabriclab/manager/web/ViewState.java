package org.fabriclab.manager.web;

import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.fabric.Fabric;

/**
 * What the fabric view draws from, taken at once from the manager's snapshot: its state, the
 * fabric as discovered last (null before the first discovery), the routing outcome's tables if
 * they are of that fabric (null while it is being routed, or if routing failed), and the table
 * version.
 */
public record ViewState(String state, Fabric fabric, ForwardingTables tables, long tableVersion) {
}
