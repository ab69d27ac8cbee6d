/**
 * The live data plane: frames, the link-level hello, Netty handlers and the drivers that run the
 * switch and host cores on Netty event loops in wall-clock time, with a shaper per link.
 */
package org.fabriclab.agent.link;
