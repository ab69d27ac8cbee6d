/**
 * What the modules' tests share: waits on named conditions ({@link org.fabriclab.testkit.Waits})
 * in place of sleeps, and the precondition of the live integration tests that the machine kept up
 * with the links it emulates ({@link org.fabriclab.testkit.LiveRates}). A test library, used in test scope; it depends on no other module, so
 * every module's tests can use it.
 */
package org.fabriclab.testkit;
