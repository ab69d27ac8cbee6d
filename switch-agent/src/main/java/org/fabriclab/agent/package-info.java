/** The switch agent: one emulated switch. Depends on proto, routing-engines, Netty and gRPC only. */
package org.fabriclab.agent;
