package org.fabriclab.ctl.wire;

import io.grpc.Status;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * One unary gRPC call on a connection of its own: HTTP/2 with prior knowledge over a plain socket,
 * or over TLS (an {@link SSLSocket} on the same socket, ALPN {@code h2}, the server's certificate
 * checked against the host name, as grpc's TLS channel does).
 * The client sends the preface, its SETTINGS (no push, the largest stream window) and a
 * connection WINDOW_UPDATE to the largest window, so the response never waits on flow control;
 * then the request as HEADERS and DATA on stream 1; then reads frames until stream 1 ends,
 * answering SETTINGS and PING and honouring the server's windows while it sends.
 *
 * <pre>
 * frame (RFC 9113, 4.1)                       gRPC message in DATA (grpc's PROTOCOL-HTTP2.md)
 * +-----------------------------------------+ +--------------+----------------------------+
 * | length (24) | type (8) | flags (8)      | | compressed(8)| length (32) | message ...  |
 * +-+---------------------------------------+ +--------------+----------------------------+
 * |R| stream id (31)                        |
 * +-+---------------------------------------+
 * | payload (length bytes)                  |
 * +-----------------------------------------+
 * </pre>
 *
 * Errors come back as gRPC statuses, as grpc's own transport reports them: a connection refused
 * or lost is UNAVAILABLE, a deadline passed DEADLINE_EXCEEDED, a protocol violation INTERNAL.
 */
final class UnaryExchange {
    /** The result of a call: its status, and the response message's bytes when there is one. */
    record Result(Status status, byte[] message) {
    }


    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final int DATA = 0x0;
    private static final int HEADERS = 0x1;
    private static final int RST_STREAM = 0x3;
    private static final int SETTINGS = 0x4;
    private static final int PING = 0x6;
    private static final int GOAWAY = 0x7;
    private static final int WINDOW_UPDATE = 0x8;
    private static final int CONTINUATION = 0x9;
    private static final int END_STREAM = 0x1;
    private static final int ACK = 0x1;
    private static final int END_HEADERS = 0x4;
    private static final int PADDED = 0x8;
    private static final int PRIORITY = 0x20;
    private static final int SETTINGS_HEADER_TABLE_SIZE = 0x1;
    private static final int SETTINGS_ENABLE_PUSH = 0x2;
    private static final int SETTINGS_INITIAL_WINDOW_SIZE = 0x4;
    private static final int SETTINGS_MAX_FRAME_SIZE = 0x5;
    /** Initial window and frame size limit of every HTTP/2 peer until its SETTINGS say otherwise. */
    private static final int DEFAULT_WINDOW = 65_535;
    private static final int DEFAULT_MAX_FRAME = 16_384;
    /** The largest flow-control window (2^31 - 1). */
    private static final int MAX_WINDOW = Integer.MAX_VALUE;
    /** HTTP/2 error code REFUSED_STREAM: the server did not start the call, safe to call again later. */
    private static final int REFUSED_STREAM = 0x7;
    private static final int CANCEL = 0x8;
    private static final int STREAM = 1;
    /** gRPC's length-prefix: one flag byte, four length bytes. */
    private static final int MESSAGE_PREFIX = 5;

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final long deadline;
    private final boolean hasDeadline;
    private final Hpack hpack = new Hpack();
    private long connectionWindow = DEFAULT_WINDOW;
    private long streamWindow = DEFAULT_WINDOW;
    private int peerInitialWindow = DEFAULT_WINDOW;
    private int peerMaxFrame = DEFAULT_MAX_FRAME;
    private final ByteArrayOutputStream block = new ByteArrayOutputStream();
    private int blockStream = -1;
    private boolean blockEndsStream;
    private Map<String, String> headers;
    private Map<String, String> trailers;
    private final ByteArrayOutputStream data = new ByteArrayOutputStream();
    private boolean ended;
    private Status reset;
    private boolean firstFrame = true;

    private UnaryExchange(Socket socket, long deadline, boolean hasDeadline) throws IOException {
        this.socket = socket;
        this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), DEFAULT_MAX_FRAME + 9));
        this.out = new BufferedOutputStream(socket.getOutputStream(), DEFAULT_MAX_FRAME + 9);
        this.deadline = deadline;
        this.hasDeadline = hasDeadline;
    }

    /**
     * Calls {@code path} ({@code /package.Service/Method}) at {@code address} with one request
     * message and {@code headers} (name, value; values sent never indexed: they may be secrets),
     * within {@code timeoutNanos} (0: no deadline), on a connection opened and closed here, over TLS
     * made by {@code tls} (null: plain text).
     */
    static Result call(InetSocketAddress address, String authority, String path, byte[] request, long timeoutNanos, SSLSocketFactory tls,
                       List<String[]> headers) {
        boolean hasDeadline = timeoutNanos > 0;
        long deadline = System.nanoTime() + timeoutNanos;
        try (Socket socket = new Socket()) {
            socket.setTcpNoDelay(true);
            socket.connect(address, hasDeadline ? timeoutMillis(deadline) : 0);
            if (tls == null) {
                return new UnaryExchange(socket, deadline, hasDeadline).run(authority, path, request, timeoutNanos, false, headers);
            }
            try (SSLSocket secure = handshake(tls, socket, address, deadline, hasDeadline)) {
                return new UnaryExchange(secure, deadline, hasDeadline).run(authority, path, request, timeoutNanos, true, headers);
            } catch (SocketTimeoutException e) {
                throw e;
            } catch (IOException e) {
                // connected, then the TLS session failed: a server that wants a client certificate
                // and got none resets the connection after the handshake, on our first read
                return new Result(Status.UNAVAILABLE.withDescription("TLS with " + address.getHostString() + ":" + address.getPort()
                        + " failed: " + e.getMessage()).withCause(e), null);
            }
        } catch (SocketTimeoutException e) {
            return new Result(Status.DEADLINE_EXCEEDED.withDescription("deadline of " + seconds(timeoutNanos) + " passed"), null);
        } catch (UnknownHostException e) {
            return new Result(Status.UNAVAILABLE.withDescription("unknown host " + e.getMessage()).withCause(e), null);
        } catch (IOException e) {
            return new Result(Status.UNAVAILABLE.withDescription(e.getMessage() == null ? e.toString() : e.getMessage()).withCause(e), null);
        } catch (IllegalStateException e) {
            return new Result(Status.INTERNAL.withDescription(e.getMessage()).withCause(e), null);
        } catch (BufferUnderflowException | NumberFormatException e) {
            // a frame shorter than its type's fields, a grpc-status that is not a number
            return new Result(Status.INTERNAL.withDescription("a malformed answer from the server: " + e).withCause(e), null);
        }
    }

    /**
     * TLS on {@code socket}: offers HTTP/2 by ALPN, checks the server's certificate against the
     * host name (HTTPS's rules), and insists the server chose h2 (grpc servers do; a server that
     * did not would read our HTTP/2 preface as garbage).
     */
    private static SSLSocket handshake(SSLSocketFactory tls, Socket socket, InetSocketAddress address, long deadline, boolean hasDeadline)
            throws IOException {
        SSLSocket s = (SSLSocket) tls.createSocket(socket, address.getHostString(), address.getPort(), true);
        SSLParameters p = s.getSSLParameters();
        p.setApplicationProtocols(new String[] {"h2"});
        p.setEndpointIdentificationAlgorithm("HTTPS");
        s.setSSLParameters(p);
        if (hasDeadline) {
            s.setSoTimeout(timeoutMillis(deadline));
        }
        s.startHandshake();
        if (!"h2".equals(s.getApplicationProtocol())) {
            s.close();
            throw new SSLException("the server did not agree to HTTP/2 (ALPN h2; it chose '" + s.getApplicationProtocol() + "')");
        }
        return s;
    }

    private Result run(String authority, String path, byte[] request, long timeoutNanos, boolean secure, List<String[]> extra)
            throws IOException {
        out.write(PREFACE);
        ByteBuffer settings = ByteBuffer.allocate(18);
        settings.putShort((short) SETTINGS_ENABLE_PUSH).putInt(0);
        settings.putShort((short) SETTINGS_INITIAL_WINDOW_SIZE).putInt(MAX_WINDOW);
        settings.putShort((short) SETTINGS_HEADER_TABLE_SIZE).putInt(Hpack.TABLE_SIZE);
        frame(SETTINGS, 0, 0, settings.array(), 0, settings.capacity());
        frame(WINDOW_UPDATE, 0, 0, ByteBuffer.allocate(4).putInt(MAX_WINDOW - DEFAULT_WINDOW).array(), 0, 4);

        ByteArrayOutputStream h = new ByteArrayOutputStream(256);
        h.write(0x83); // :method POST, static entry 3
        h.write(secure ? 0x87 : 0x86); // :scheme https or http, static entries 7 and 6
        Hpack.literal(h, ":path", path);
        Hpack.literal(h, ":authority", authority);
        Hpack.literal(h, "content-type", "application/grpc");
        Hpack.literal(h, "te", "trailers");
        if (timeoutNanos > 0) {
            Hpack.literal(h, "grpc-timeout", grpcTimeout(timeoutNanos));
        }
        for (String[] header : extra) {
            Hpack.neverIndexed(h, header[0], header[1]);
        }
        frame(HEADERS, END_HEADERS, STREAM, h.toByteArray(), 0, h.size());

        byte[] message = ByteBuffer.allocate(MESSAGE_PREFIX + request.length).put((byte) 0).putInt(request.length).put(request).array();
        int sent = 0;
        while (sent < message.length && !ended) {
            int chunk = (int) Math.min(Math.min(message.length - sent, peerMaxFrame), Math.min(connectionWindow, streamWindow));
            if (chunk <= 0) {
                out.flush();
                readFrame();
                continue;
            }
            frame(DATA, sent + chunk == message.length ? END_STREAM : 0, STREAM, message, sent, chunk);
            connectionWindow -= chunk;
            streamWindow -= chunk;
            sent += chunk;
        }
        out.flush();
        while (!ended) {
            readFrame();
        }
        frame(GOAWAY, 0, 0, new byte[8], 0, 8); // last stream 0, NO_ERROR: we are done with the connection
        out.flush();
        return result();
    }

    private void frame(int type, int flags, int stream, byte[] payload, int from, int length) throws IOException {
        out.write(length >>> 16);
        out.write(length >>> 8);
        out.write(length);
        out.write(type);
        out.write(flags);
        out.write(stream >>> 24);
        out.write(stream >>> 16);
        out.write(stream >>> 8);
        out.write(stream);
        out.write(payload, from, length);
    }

    /** A frame header's nine bytes as text, what is not printable ASCII as '.' (what a server that is not HTTP/2 sent first). */
    private static String printable(int length, int type, int flags, int stream) {
        int[] b = {length >>> 16, length >>> 8 & 0xff, length & 0xff, type, flags, stream >>> 24, stream >>> 16 & 0xff, stream >>> 8 & 0xff,
            stream & 0xff};
        StringBuilder t = new StringBuilder(9);
        for (int x : b) {
            t.append(x >= 0x20 && x < 0x7f && x != '"' ? (char) x : '.');
        }
        return t.toString();
    }

    /** Reads and handles one frame. */
    private void readFrame() throws IOException {
        if (hasDeadline) {
            socket.setSoTimeout(timeoutMillis(deadline));
        }
        int length;
        try {
            length = in.readUnsignedByte() << 16 | in.readUnsignedShort();
        } catch (EOFException e) {
            throw new IOException("the server closed the connection before the call ended", e);
        }
        int type = in.readUnsignedByte();
        int flags = in.readUnsignedByte();
        int rawStream = in.readInt();
        int stream = rawStream & 0x7fffffff;
        if (firstFrame) {
            firstFrame = false;
            if (length > DEFAULT_MAX_FRAME || type > CONTINUATION) {
                // no HTTP/2 server: an HTTP/1 one (the daemon's metrics port is the likely one) answers
                // the preface with text, which read as a frame header is a huge frame of no known type
                throw new IOException("the server does not speak HTTP/2, so it is no gRPC server: it answered \""
                        + printable(length, type, flags, rawStream) + "...\"; is --server the daemon's admin port (its --admin-port, "
                        + "50051 by default), not another?");
            }
        }
        if (length > DEFAULT_MAX_FRAME) {
            throw new IllegalStateException("HTTP/2: a frame of " + length + " bytes, above the " + DEFAULT_MAX_FRAME + " we allow");
        }
        byte[] p = new byte[length];
        in.readFully(p);
        if (blockStream >= 0 && type != CONTINUATION) {
            throw new IllegalStateException("HTTP/2: frame type " + type + " inside a header block");
        }
        switch (type) {
            case DATA -> {
                if (stream == STREAM) {
                    int pad = (flags & PADDED) != 0 ? (p[0] & 0xff) + 1 : 0;
                    data.write(p, pad == 0 ? 0 : 1, length - pad);
                    ended |= (flags & END_STREAM) != 0;
                }
            }
            case HEADERS -> {
                int from = (flags & PADDED) != 0 ? 1 : 0;
                int pad = from == 1 ? p[0] & 0xff : 0;
                if ((flags & PRIORITY) != 0) {
                    from += 5;
                }
                blockStream = stream;
                blockEndsStream = (flags & END_STREAM) != 0;
                block.reset();
                block.write(p, from, length - from - pad);
                if ((flags & END_HEADERS) != 0) {
                    headerBlockDone();
                }
            }
            case CONTINUATION -> {
                if (stream != blockStream) {
                    throw new IllegalStateException("HTTP/2: CONTINUATION on stream " + stream + " outside a header block");
                }
                block.write(p, 0, length);
                if ((flags & END_HEADERS) != 0) {
                    headerBlockDone();
                }
            }
            case RST_STREAM -> {
                if (stream == STREAM) {
                    reset = resetStatus(ByteBuffer.wrap(p).getInt(), hasDeadline && System.nanoTime() - deadline >= 0);
                    ended = true;
                }
            }
            case SETTINGS -> {
                if ((flags & ACK) == 0) {
                    settings(ByteBuffer.wrap(p));
                    frame(SETTINGS, ACK, 0, p, 0, 0);
                    out.flush();
                }
            }
            case PING -> {
                if ((flags & ACK) == 0) {
                    frame(PING, ACK, 0, p, 0, length);
                    out.flush();
                }
            }
            case GOAWAY -> {
                ByteBuffer b = ByteBuffer.wrap(p);
                int lastStream = b.getInt() & 0x7fffffff;
                int code = b.getInt();
                if (lastStream < STREAM) {
                    throw new IOException("the server refused the call (GOAWAY, HTTP/2 error code " + code + ")");
                }
            }
            case WINDOW_UPDATE -> {
                int increment = ByteBuffer.wrap(p).getInt() & 0x7fffffff;
                if (stream == 0) {
                    connectionWindow += increment;
                } else if (stream == STREAM) {
                    streamWindow += increment;
                }
            }
            default -> {
                // PRIORITY and unknown types are ignored (RFC 9113, 4.1); push is disabled
            }
        }
    }

    private void settings(ByteBuffer b) {
        while (b.remaining() >= 6) {
            int id = b.getShort() & 0xffff;
            int value = b.getInt();
            if (id == SETTINGS_INITIAL_WINDOW_SIZE) {
                streamWindow += (long) value - peerInitialWindow;
                peerInitialWindow = value;
            } else if (id == SETTINGS_MAX_FRAME_SIZE) {
                peerMaxFrame = value;
            }
        }
    }

    /** A complete header block: decoded always (it changes the dynamic table), kept if it is the call's. */
    private void headerBlockDone() {
        Map<String, String> fields = hpack.decode(block.toByteArray());
        int stream = blockStream;
        blockStream = -1;
        if (stream != STREAM) {
            return;
        }
        if (headers == null) {
            headers = fields;
            if (blockEndsStream) {
                trailers = fields; // trailers-only: an error answered without a message
            }
        } else {
            trailers = fields;
        }
        ended |= blockEndsStream;
    }

    private Result result() {
        if (reset != null) {
            return new Result(reset, null);
        }
        String http = headers.get(":status");
        if (!"200".equals(http)) {
            return new Result(httpStatus(http).withDescription("HTTP status " + http + " from the server"), null);
        }
        String type = headers.getOrDefault("content-type", "");
        if (!type.startsWith("application/grpc")) {
            return new Result(Status.INTERNAL.withDescription("not a gRPC response (content-type '" + type + "')"), null);
        }
        if (trailers == null || !trailers.containsKey("grpc-status")) {
            return new Result(Status.INTERNAL.withDescription("the call ended without a grpc-status"), null);
        }
        Status status = Status.fromCodeValue(Integer.parseInt(trailers.get("grpc-status")));
        String description = trailers.get("grpc-message");
        if (description != null) {
            status = status.withDescription(percentDecode(description));
        }
        if (!status.isOk()) {
            return new Result(status.withCause(PlainHttp2Channel.ServerStatus.INSTANCE), null);
        }
        byte[] d = data.toByteArray();
        if (d.length == 0) {
            return new Result(status, null);
        }
        ByteBuffer b = ByteBuffer.wrap(d);
        int compressed = b.get();
        int length = b.remaining() >= 4 ? b.getInt() : -1;
        if (compressed != 0 || length != b.remaining()) {
            return new Result(Status.INTERNAL.withDescription(compressed != 0 ? "a compressed response, and the call asked for none"
                    : "a response of " + d.length + " bytes that is not one length-prefixed message"), null);
        }
        byte[] message = new byte[length];
        b.get(message);
        return new Result(status, message);
    }

    /** gRPC's mapping of an HTTP status that is not 200 (grpc's http-grpc-status-mapping.md). */
    private static Status httpStatus(String http) {
        return switch (http == null ? "" : http) {
            case "400" -> Status.INTERNAL;
            case "401" -> Status.UNAUTHENTICATED;
            case "403" -> Status.PERMISSION_DENIED;
            case "404" -> Status.UNIMPLEMENTED;
            case "429", "502", "503", "504" -> Status.UNAVAILABLE;
            default -> Status.UNKNOWN;
        };
    }

    /** grpc-message is percent-encoded UTF-8. */
    static String percentDecode(String s) {
        if (s.indexOf('%') < 0) {
            return s;
        }
        ByteArrayOutputStream b = new ByteArrayOutputStream(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%' && i + 2 < s.length() && Character.digit(s.charAt(i + 1), 16) >= 0 && Character.digit(s.charAt(i + 2), 16) >= 0) {
                b.write(Integer.parseInt(s, i + 1, i + 3, 16));
                i += 2;
            } else {
                b.write(c);
            }
        }
        return b.toString(StandardCharsets.UTF_8);
    }

    /**
     * The status of a call the server reset with HTTP/2 error {@code code}. A server whose deadline
     * for the call (our grpc-timeout, counted from its arrival there) has passed cancels it, and
     * that reset can be read before our own read times out when this thread wakes late: after our
     * deadline a cancel is the deadline's, as grpc-java's client would report it.
     */
    static Status resetStatus(int code, boolean deadlinePassed) {
        Status s = code == REFUSED_STREAM ? Status.UNAVAILABLE
                : code != CANCEL ? Status.INTERNAL
                : deadlinePassed ? Status.DEADLINE_EXCEEDED : Status.CANCELLED;
        return s.withDescription("the server reset the call (HTTP/2 error code " + code + ")"
                + (s.getCode() == Status.Code.DEADLINE_EXCEEDED ? " at its deadline" : ""));
    }

    /** The grpc-timeout header: at most eight digits and a unit (H, M, S, m, u, n). */
    static String grpcTimeout(long nanos) {
        long[] per = {1, 1_000, 1_000_000, 1_000_000_000L, 60_000_000_000L, 3_600_000_000_000L};
        String units = "numSMH";
        for (int i = 0; i < per.length; i++) {
            long v = (nanos + per[i] - 1) / per[i];
            if (v < 100_000_000L) {
                return v + units.substring(i, i + 1);
            }
        }
        return "99999999H";
    }

    private static int timeoutMillis(long deadline) throws SocketTimeoutException {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            throw new SocketTimeoutException("deadline passed");
        }
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(left)));
    }

    private static String seconds(long nanos) {
        return nanos / 1_000_000 / 1000.0 + " s";
    }
}
