package org.fabriclab.routing.format;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The lines of a text file, numbered, as the parsers of this package read them: a UTF-8 byte-order
 * mark before the first line is dropped (editors on Windows write one), and a decoding error names
 * its line.
 *
 * <p>Why the reader is made here ({@link #utf8}): a strict decoder fails a whole buffer of 8 KB at
 * once, so the line a {@link java.nio.charset.MalformedInputException} surfaces on is not the line
 * that holds the bad byte, and its message ({@code Input length = 1}) says neither. The reader
 * from {@link #utf8} puts U+FFFD in place of each byte sequence that is not UTF-8, and
 * {@link #badByteAt} finds it in its line: a parser refuses that line (net files) or skips it
 * (guid2lid) with the right number. A strict reader's decoding error is still reported with the
 * line it surfaced on, as a {@link FormatException}.
 */
public final class TextLines {
    /** What {@link #utf8} decodes a byte sequence that is not UTF-8 to. */
    public static final char REPLACEMENT = '\uFFFD';
    private static final char BOM = '\uFEFF';
    private final BufferedReader in;
    private final String source;
    private int lineNo;

    public TextLines(Reader in, String source) {
        this.in = in instanceof BufferedReader b ? b : new BufferedReader(in);
        this.source = source;
    }

    /** A reader of UTF-8 text that replaces what is not UTF-8 by {@link #REPLACEMENT} instead of failing. */
    public static Reader utf8(InputStream in) {
        return new InputStreamReader(in, StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE));
    }

    /**
     * The next line, without its terminator (the first without a byte-order mark), or null at the end.
     *
     * @throws FormatException where a strict reader could not decode the text
     */
    public String next() throws IOException {
        String line;
        try {
            line = in.readLine();
        } catch (CharacterCodingException e) {
            throw new FormatException(source, lineNo + 1, "the text is not UTF-8 at or before this line (" + e.getMessage() + ")");
        }
        if (line == null) {
            return null;
        }
        lineNo++;
        if (lineNo == 1 && !line.isEmpty() && line.charAt(0) == BOM) {
            line = line.substring(1);
        }
        return line;
    }

    /** The number of the line {@link #next} returned last (1-based; 0 before the first). */
    public int lineNo() {
        return lineNo;
    }

    /** The 1-based column of the first byte sequence that was not UTF-8 in {@code line}, or 0 if there is none. */
    public static int badByteAt(String line) {
        return line.indexOf(REPLACEMENT) + 1;
    }

    /** {@code badByteAt}'s problem, as the parsers word it. */
    public static String notUtf8(int column) {
        return "column " + column + ": bytes that are not UTF-8 text (a binary or wrongly encoded file?)";
    }
}
