/**
 * The torus engines in the engine framework: {@code TorusRoutingEngine} runs one of the
 * {@code org.fabriclab.routing.torus} engines and hands its source routes to the daemon and the
 * simulator beside minhop's LFTs. An adapter only: the torus algorithms stay in {@code routing.torus}.
 */
package org.fabriclab.routing.engine.torus;
