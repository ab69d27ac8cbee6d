/**
 * The live data plane: frames, the link-level hello, Netty handlers and the drivers that run the
 * switch and host cores on Netty event loops in wall-clock time, with a shaper per link; a
 * closed-loop job's core object shared by its hosts under a lock ({@code LiveLoop}), the one place
 * where hosts on different event loops share state.
 */
package org.fabriclab.agent.link;
