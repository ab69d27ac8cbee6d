/**
 * Discovery, as OpenSM's heavy sweep starts: breadth-first from one endpoint over the nodes'
 * management contract, reading each node's NodeInfo, PortInfo and SwitchInfo into
 * {@code DiscoveredNode}s and the {@code Fabric} they describe. Reads only: nothing here writes to
 * a node, and nothing here depends on the sweep or on the manager's state machine.
 */
package org.fabriclab.manager.discovery;
