package org.fabriclab.routing.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Input quoted in error messages stays small and printable, however large or strange it is. */
class ExcerptTest {
    @Test
    void aShortInputIsQuotedWhole() {
        assertEquals("\"H0_0_1\"", Excerpt.quote("H0_0_1"));
        assertEquals("null", Excerpt.quote(null));
    }

    @Test
    void aHugeInputIsCutAndItsLengthSaid() {
        String q = Excerpt.quote("x".repeat(65_536));
        assertTrue(q.startsWith("\"" + "x".repeat(Excerpt.QUOTED) + "...\""), q);
        assertTrue(q.endsWith("(65536 characters)"), q);
        assertTrue(q.length() < Excerpt.QUOTED + 40, "length " + q.length());
    }

    @Test
    void aBareExcerptIsCutLikeAQuoteAndLeavesQuotesToItsMessage() {
        assertEquals("it's \"x\"", Excerpt.bare("it's \"x\""));
        assertEquals("a\\u000ab", Excerpt.bare("a\nb"));
        String b = Excerpt.bare("y".repeat(65_536));
        assertEquals("y".repeat(Excerpt.QUOTED) + "... (65536 characters)", b);
        assertEquals("null", Excerpt.bare(null));
    }

    @Test
    void controlCharactersAndQuotesCannotForgeALine() {
        assertEquals("\"a\\u000ab\\\"c\\\\\\u0000\"", Excerpt.quote("a\nb\"c\\\0"));
    }

    @Test
    void aTabReadsAsATabNotAsItsCode() {
        // ibnetdiscover's lines are tab-separated: a refused line shows them as a user would write them
        assertEquals("[3]\\t\"S2\"", Excerpt.bare("[3]\t\"S2\""));
        assertEquals("\"a\\tb\"", Excerpt.quote("a\tb"));
    }

    @Test
    void aSurrogatePairIsNeverSplit() {
        String s = "a".repeat(Excerpt.QUOTED - 1) + "\uD83D\uDE00" + "b";
        String q = Excerpt.quote(s);
        assertTrue(q.startsWith("\"" + "a".repeat(Excerpt.QUOTED - 1) + "...\""), q);
    }

    @Test
    void aMessageIsCutToItsLimitSayingHowLongItWas() {
        assertNull(Excerpt.message(null));
        assertEquals("short", Excerpt.message("short"));
        String m = Excerpt.message("y".repeat(100_000));
        assertEquals(Excerpt.MESSAGE, m.length());
        assertTrue(m.endsWith("(100000 characters in all)"), m);
        String kept = Excerpt.message("z".repeat(5_000), "; nothing was changed");
        assertEquals(Excerpt.MESSAGE, kept.length());
        assertTrue(kept.endsWith("... (5000 characters); nothing was changed"), kept);
        assertEquals("short; done", Excerpt.message("short", "; done"));
    }
}
