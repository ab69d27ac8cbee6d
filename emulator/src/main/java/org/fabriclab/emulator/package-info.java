/** The emulator: builds and runs fabrics of switch agents and hosts, live or in virtual time. */
package org.fabriclab.emulator;
