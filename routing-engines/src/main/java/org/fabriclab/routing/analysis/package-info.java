/**
 * Route analysis: tracing pairs through forwarding tables, channel loads, the edge-forwarding
 * index and sigma(k), path lengths, and the channel dependency graph check; and a frame's time
 * between two endpoints through the empty fabric ({@code NoLoadLatency}). Pure functions of the
 * tables and the fabric; nothing here changes them.
 */
package org.fabriclab.routing.analysis;
