package org.fabriclab.agent.core;

/**
 * The sizes of a DATA frame that both clocks need: the live plane's codec
 * ({@code org.fabriclab.agent.link.Frames}, which draws the layout) and the simulator, which charges
 * a link the same bytes per packet without building a frame. Here, below the Netty code, so the
 * simulator and the cores need not depend on the live data plane.
 */
public final class FrameSizes {
    /** Bytes of a DATA frame before its payload: the length field, the type and the header fields. */
    public static final int DATA_HEADER = 37;
    /** Largest payload (an InfiniBand MTU of 4096). */
    public static final int MAX_PAYLOAD = 4096;
    /** Largest frame the decoder accepts: a DATA header and the largest payload. */
    public static final int MAX_FRAME = DATA_HEADER + MAX_PAYLOAD;
    /**
     * The payload of the live hosts' traffic ({@code emulator up}, {@code fabric-manager --emulate},
     * the live scenarios): 2,048 bytes, so {@link #LIVE_FRAME} is the largest frame a live fabric's
     * buffers are sized for, and a {@code switch-agent}'s default.
     */
    public static final int LIVE_PAYLOAD = 2048;
    /** A live host's frame: {@link #DATA_HEADER} and {@link #LIVE_PAYLOAD}, 2,085 bytes. */
    public static final int LIVE_FRAME = DATA_HEADER + LIVE_PAYLOAD;

    private FrameSizes() {
    }
}
