package org.fabriclab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code --engine-param}: a name the chain's engines read with a value they take passes; an
 * unknown name is refused naming the ones the chain reads, and a value an engine would refuse
 * when it routes is refused now, naming the engine and why.
 */
class EngineParamOptionTest {
    @Test
    void namesAndValuesAreCheckedAgainstTheChain() {
        assertEquals(Map.of("alpha", "0.3", "link_gbps", "5"), EngineParamOption.checked(Map.of("alpha", "0.3", "link_gbps", "5"), "q-adaptive"));
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> EngineParamOption.checked(Map.of("foo", "1"), "q-adaptive"));
        assertEquals("--engine-param foo: no engine of the chain q-adaptive reads it; they read alpha, beta, epsilon, global_latency_ns, hop_ns, "
                + "link_gbps, local_latency_ns, packet_bytes, q_thld1, q_thld2, qtable_seed", unknown.getMessage());
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
                () -> EngineParamOption.checked(Map.of("alpha", "0.3"), "updn"));
        assertEquals("--engine-param alpha: no engine of the chain updn reads it (they take no parameters)", none.getMessage());
        assertEquals("--engine-param for q-adaptive: alpha=2.0 is outside 0..1",
                assertThrows(IllegalArgumentException.class, () -> EngineParamOption.checked(Map.of("alpha", "2"), "q-adaptive")).getMessage());
        assertEquals("--engine-param for df-ugalg: ugal_bias=x is not a whole number",
                assertThrows(IllegalArgumentException.class, () -> EngineParamOption.checked(Map.of("ugal_bias", "x"), "df-ugalg")).getMessage());
        assertEquals("--engine-param for q-adaptive: link_gbps=0 is not a positive number",
                assertThrows(IllegalArgumentException.class, () -> EngineParamOption.checked(Map.of("link_gbps", "0"), "q-adaptive")).getMessage());
    }
}
