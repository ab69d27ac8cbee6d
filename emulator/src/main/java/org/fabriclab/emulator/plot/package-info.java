/**
 * SVG line plots the emulator's commands write ({@code scenario --svg}, {@code sweep --svg}): a
 * document with its background, plot areas with linear or logarithmic axes, ticks, grid and
 * labels, and legends. Plain SVG 1.1 text, no scripts, fonts or resources from elsewhere. Knows
 * nothing of simulations or scenarios: callers map their results onto it.
 */
package org.fabriclab.emulator.plot;
