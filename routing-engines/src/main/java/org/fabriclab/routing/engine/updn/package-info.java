/**
 * The {@code updn} engine: up*&#47;down* routing over ranks from a root set, deadlock-free with one
 * lane. Root detection is package-private and tested here.
 */
package org.fabriclab.routing.engine.updn;
