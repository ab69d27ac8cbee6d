/**
 * The subnet management agent of a node: its management state ({@code ManagedNode}) and the gRPC
 * {@code Management} service that exposes it. Serves switches and channel adapters alike.
 */
package org.fabriclab.agent.mgmt;
