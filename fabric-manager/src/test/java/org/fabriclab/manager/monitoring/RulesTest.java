package org.fabriclab.manager.monitoring;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The recording and alert rules: {@code promtool check rules} accepts every rule file and
 * {@code promtool test rules} passes their unit tests (input series, the alerts expected to fire
 * and the values expected recorded). Skipped without promtool unless FABRICLAB_REQUIRE_PROMTOOL.
 */
class RulesTest {
    @Test
    void promtoolChecksTheRules() throws Exception {
        List<Path> files = Rules.ruleFiles();
        assertFalse(files.isEmpty(), "no rule files in " + Rules.DIR);
        for (Path file : files) {
            String out = Promtool.run(Rules.DIR, null, "check", "rules", file.getFileName().toString());
            assertTrue(out.contains("SUCCESS"), out);
        }
    }

    @Test
    void promtoolTestsTheRules() throws Exception {
        List<Path> tests = Rules.testFiles();
        for (Path file : Rules.ruleFiles()) {
            String test = file.getFileName().toString().replace(".yaml", "-test.yaml");
            assertTrue(tests.stream().anyMatch(t -> t.getFileName().toString().equals(test)), file + " has no " + test);
            assertTrue(Files.readString(Rules.DIR.resolve(test)).contains("- " + file.getFileName()), test + " loads " + file.getFileName());
        }
        for (Path file : tests) {
            Promtool.run(Rules.DIR, null, "test", "rules", file.getFileName().toString());
        }
    }

    /** Every recording rule reads as the live check runs it: an expression and a unit from its name. */
    @Test
    void recordingRulesAreRead() throws Exception {
        List<Query> records = Rules.queries(false);
        assertTrue(records.size() >= 5, records.toString());
        assertTrue(records.stream().anyMatch(q -> q.title().equals("kind:fabric_port_utilisation_ratio:avg") && q.unit().equals("percentunit")
                && q.expr().startsWith("avg by (kind)")), records.toString());
        assertTrue(records.stream().anyMatch(q -> q.unit().equals("bps") && q.expr().contains("* on() group_left() (fabric_emulation_dilation")),
                "a folded expression is read whole: " + records);
        assertTrue(Rules.queries(true).size() > records.size(), "alerts are rules too");
    }
}
