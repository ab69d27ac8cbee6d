/**
 * The Dragonfly engines ({@code df-min}, {@code df-valg}, {@code df-valn}, {@code df-ugalg},
 * {@code df-ugaln}, {@code df-par}, {@code q-adaptive}): one {@link
 * org.fabriclab.routing.engine.dragonfly.DragonflyEngine} per algorithm, making the minimal LFTs
 * and every router's Dragonfly routing state. Holds no state between runs.
 */
package org.fabriclab.routing.engine.dragonfly;
