/** The fabric manager daemon. Depends on routing-engines, proto and gRPC; on the emulator only for --emulate. */
package org.fabriclab.manager;
