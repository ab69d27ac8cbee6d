/**
 * The admin CLI's gRPC transport: an {@link io.grpc.Channel} that makes each unary call over one
 * plain TCP socket speaking HTTP/2 with prior knowledge (RFC 9113, what grpc-java's plaintext
 * server expects), with the HPACK (RFC 7541) it needs. It exists because a CLI verb makes one or
 * two calls and exits: grpc-netty's channel loads some 2,000 classes (Netty, its event loops,
 * logging) that a fresh JVM spends most of a second loading and interpreting, while this path
 * loads a few dozen. The generated stubs, marshallers, deadlines and status codes are grpc's own;
 * only the transport is ours. Unary calls only; TLS when asked (the JDK's {@code SSLSocket} on the
 * same socket, ALPN h2, loaded only then); no compression, no retries; one call per connection.
 * Nothing here may load Netty (a test reads the class-load log).
 */
package org.fabriclab.ctl.wire;
