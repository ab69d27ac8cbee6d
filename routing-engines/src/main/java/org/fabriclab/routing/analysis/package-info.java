/**
 * Route analysis: tracing pairs through forwarding tables, channel loads, the edge-forwarding
 * index and sigma(k), path lengths, and the channel dependency graph check. Pure functions of the
 * tables; nothing here changes them.
 */
package org.fabriclab.routing.analysis;
