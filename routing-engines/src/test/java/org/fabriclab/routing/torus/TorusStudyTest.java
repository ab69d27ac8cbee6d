package org.fabriclab.routing.torus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Figure 5's study on a seeded sample (the full sets are a CLI command: docs/reproductions.md). */
class TorusStudyTest {
    @Test
    void aSmallSampleGroupsEverySystemOncePerEngineAndIsRepeatable() {
        List<String> engines = List.of("torus-bfs", "torus-sssp", "torus-genetic");
        TorusStudy.Result r = TorusStudy.run(2, 6, 2, 8, 36, engines, 3);
        assertEquals(6, r.systems().size());
        assertEquals(6, r.systems().stream().map(s -> Arrays.toString(s.dims())).distinct().count(), "distinct tori");
        for (String e : List.of("torus-sssp", "torus-genetic")) {
            int total = r.groups().stream().filter(g -> g.engine().equals(e)).mapToInt(TorusStudy.Group::systems).sum();
            assertEquals(6, total, e + ": every system in one group");
        }
        for (TorusStudy.Group g : r.groups()) {
            if (g.relation().equals("less") && g.systems() > 0) {
                assertTrue(g.efiRatio() < 1, g.toString());
            }
            if (g.relation().equals("equal") && g.systems() > 0) {
                assertEquals(1.0, g.efiRatio(), 1e-12);
            }
        }
        for (String e : engines) {
            int counted = r.runtimes().stream().filter(x -> x.engine().equals(e)).mapToInt(TorusStudy.Runtime::systems).sum();
            assertEquals(6, counted, e + ": every system in one runtime band");
        }
        TorusStudy.Result again = TorusStudy.run(2, 6, 2, 8, 36, engines, 3);
        for (int i = 0; i < 6; i++) {
            assertEquals(r.systems().get(i).efi(), again.systems().get(i).efi());
        }
    }

    @Test
    void askingForMoreSystemsThanThereAreTakesThemAll() {
        // sizes 2..3 in 2D: 2x2, 2x3, 3x2, 3x3
        assertEquals(4, TorusStudy.run(2, 100, 2, 3, 4096, List.of("torus-bfs"), 1).systems().size());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TorusStudy.run(2, 5, 2, 8, 36, List.of("torus-sssp"), 1));
        assertTrue(e.getMessage().contains("torus-bfs first"), e.getMessage());
    }

    /** Each bad parameter is named with its value; sizes far beyond what fits are not walked one by one (4D to 10^9 was ~10^36 shapes). */
    @Test
    void badParametersAreNamedAndHugeSizesAreNotWalked() {
        List<String> bfs = List.of("torus-bfs");
        for (Object[] c : new Object[][] {
            {9, 1, 2, 8, 36, bfs, "--dimensions 9"},
            {2, 0, 2, 8, 36, bfs, "--systems 0"},
            {2, 1, 1, 8, 36, bfs, "--min-size 1"},
            {2, 1, 5, 3, 36, bfs, "--max-size 3 is below --min-size 5"},
            {2, 1, 2, 8, 60_000, bfs, "--max-nodes 60000: give 1 to 50000"},
            {2, 1, 2, 8, 36, List.of("torus-sssp"), "torus-bfs first"},
        }) {
            @SuppressWarnings("unchecked")
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TorusStudy.run((int) c[0], (int) c[1], (int) c[2],
                    (int) c[3], (int) c[4], (List<String>) c[5], 1));
            assertTrue(e.getMessage().contains((String) c[6]), e.getMessage());
        }
        // at most 36 nodes with sizes from 2: no size above 18 fits, so a max of a billion draws the same systems as 18
        TorusStudy.Result wide = TorusStudy.run(4, 3, 2, 1_000_000_000, 36, bfs, 3);
        TorusStudy.Result fitting = TorusStudy.run(4, 3, 2, 18, 36, bfs, 3);
        assertEquals(fitting.systems().stream().map(x -> Arrays.toString(x.dims())).toList(),
                wide.systems().stream().map(x -> Arrays.toString(x.dims())).toList());
    }
}
