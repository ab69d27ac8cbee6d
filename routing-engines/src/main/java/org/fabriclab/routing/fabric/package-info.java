/**
 * The immutable fabric model: nodes, ports, links, GUIDs and known structure, int-indexed with
 * primitive arrays inside. No I/O, no threads.
 */
package org.fabriclab.routing.fabric;
