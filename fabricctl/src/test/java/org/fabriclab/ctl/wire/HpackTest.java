package org.fabriclab.ctl.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.grpc.netty.shaded.io.netty.buffer.ByteBuf;
import io.grpc.netty.shaded.io.netty.buffer.ByteBufUtil;
import io.grpc.netty.shaded.io.netty.buffer.Unpooled;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2Headers;
import java.io.ByteArrayOutputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Our HPACK decoder against Netty's encoder, the one grpc-java's server uses: every representation it chooses. */
class HpackTest {
    /** Netty's encoder, keeping its dynamic table across blocks as a connection does. */
    private final DefaultHttp2HeadersEncoder netty = new DefaultHttp2HeadersEncoder();
    private final Hpack ours = new Hpack();

    private Map<String, String> roundTrip(Map<String, String> fields) throws Exception {
        Http2Headers h = new DefaultHttp2Headers(false);
        fields.forEach(h::add);
        ByteBuf buf = Unpooled.buffer();
        try {
            netty.encodeHeaders(1, h, buf);
            return ours.decode(ByteBufUtil.getBytes(buf));
        } finally {
            buf.release();
        }
    }

    @Test
    void decodesAResponseAndItsTrailersAsTheServerEncodesThem() throws Exception {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(":status", "200");
        headers.put("content-type", "application/grpc");
        headers.put("grpc-encoding", "identity");
        headers.put("grpc-accept-encoding", "gzip");
        for (int call = 0; call < 3; call++) { // the second and third come from the dynamic table
            assertEquals(headers, roundTrip(headers));
            Map<String, String> trailers = Map.of("grpc-status", "3", "grpc-message", "no switch named %22SW" + call + "%22");
            assertEquals(trailers, roundTrip(trailers));
        }
    }

    @Test
    void decodesEveryStaticEntryAndEveryByteHuffmanCoded() throws Exception {
        String[] names = {":authority", ":path", "accept-charset", "accept-encoding", "content-length", "www-authenticate", "user-agent", "via"};
        Map<String, String> fields = new LinkedHashMap<>();
        for (String n : names) {
            fields.put(n, n.equals(":path") ? "/" : "");
        }
        fields.put(":method", "POST");
        fields.put(":scheme", "https");
        assertEquals(fields, roundTrip(fields));

        // every byte value, each in a value Netty codes with Huffman: it does for strings of 512 bytes
        // or more (HpackEncoder's huffCodeThreshold) that it makes shorter, as 600 5-bit 'e's do
        for (int b = 0; b < 256; b++) {
            Map<String, String> one = Map.of("x-byte", (char) b + "e".repeat(600) + (char) b);
            assertEquals(one, roundTrip(one), "byte " + b);
        }
    }

    @Test
    void evictsAsTheEncoderDoesWhenTheTableFills() throws Exception {
        for (int i = 0; i < 500; i++) {
            Map<String, String> f = Map.of("x-key-" + (i % 37), "value " + i + " " + "v".repeat(i % 90));
            assertEquals(f, roundTrip(f));
        }
    }

    @Test
    void refusesWhatIsNotHpack() {
        assertThrows(IllegalStateException.class, () -> ours.decode(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0x7f}));
        assertThrows(IllegalStateException.class, () -> ours.decode(new byte[] {(byte) 0xbf})); // index 63: no dynamic entry
        assertThrows(IllegalStateException.class, () -> ours.decode(new byte[] {0x00, 0x05, 'a'})); // a string past the end
    }

    @Test
    void writesLiteralsNettyReads() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Hpack.literal(out, ":path", "/fabriclab.v1.Admin/" + "x".repeat(200)); // a length past the 7-bit prefix
        Hpack.literal(out, "te", "trailers");
        Map<String, String> read = new LinkedHashMap<>();
        new DefaultHttp2HeadersDecoder(false)
                .decodeHeaders(1, Unpooled.wrappedBuffer(out.toByteArray()))
                .forEach(e -> read.put(e.getKey().toString(), e.getValue().toString()));
        assertEquals(Map.of(":path", "/fabriclab.v1.Admin/" + "x".repeat(200), "te", "trailers"), read);
    }
}
