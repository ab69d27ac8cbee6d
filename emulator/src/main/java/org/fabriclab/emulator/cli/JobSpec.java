package org.fabriclab.emulator.cli;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.fabriclab.agent.core.ClosedLoop;
import org.fabriclab.agent.core.Placement;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.emulator.sim.Simulation;
import org.fabriclab.routing.dragonfly.RoutingMode;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.text.Excerpt;

/**
 * One {@code --job} of {@code emulator sim}: {@code name=N,hosts=H[,placement=P][,pattern=T][,load=X][,mode=M][,message=B]},
 * as a batch scheduler would run a job on the fabric: H hosts placed {@link Placement contiguous,
 * random or interleaved}, sending by pattern T among its own ranks (all-to-all, allreduce-ring,
 * halo3d, random; uniform is random; or closed-loop, with no load: ping-pong, barrier, broadcast,
 * alltoall, allreduce, halo3d-loop, sweep3d, each named apart from the open-loop pattern it
 * resembles, whose name documented commands use), at load X of each host's link, every packet asking for
 * routing mode M, in messages of B bytes. {@link #parse} refuses a malformed spec with the key
 * and value; {@link #place} places every job in order and refuses one that does not fit.
 *
 * @param name         the job's name in the report
 * @param hosts        its ranks
 * @param placement    how its ranks are put on the free hosts
 * @param patternName  the pattern as given ({@code random} stays random in the report)
 * @param pattern      the pattern
 * @param load         offered load per host, or null: {@code --load}
 * @param mode         routing mode, or null: {@code --routing-mode} (or, with {@code appAware}, chosen per message)
 * @param messageBytes message size in bytes, or 0: one packet's payload
 * @param appAware     {@code mode=app-aware}: each host chooses each message's mode from its NIC counters
 * @param loop         a closed-loop microbenchmark ({@code pattern=ping-pong}), or null: open-loop
 */
record JobSpec(String name, int hosts, Placement placement, String patternName, TrafficPattern pattern, Double load, RoutingMode mode,
               long messageBytes, boolean appAware, ClosedLoop.Kind loop) {
    /** {@code mode=}'s value for application-aware routing. */
    static final String APP_AWARE = "app-aware";

    /** The keys a spec takes. */
    static final String KEYS = "name, hosts, placement, pattern, load, mode, message";
    /** The patterns a job takes. */
    static final String PATTERNS = "all-to-all, allreduce-ring, halo3d, random (uniform), permutation, or closed-loop ping-pong, barrier, broadcast, "
            + "alltoall, allreduce, halo3d-loop, sweep3d";
    /** The largest message: a source queue of the most packets could not hold more of the smallest packets. */
    static final long MAX_MESSAGE_BYTES = 1L << 30;

    /**
     * The spec {@code text}, the {@code index}-th {@code --job} (0-based, for the default name {@code job1}..).
     *
     * @throws IllegalArgumentException one line: "Invalid value for option '--job': " and what is wrong
     */
    static JobSpec parse(String text, int index) {
        Map<String, String> kv = new LinkedHashMap<>();
        for (String part : text.split(",", -1)) {
            int eq = part.indexOf('=');
            if (eq <= 0) {
                throw invalid(text, Excerpt.quote(part) + " is not KEY=VALUE; keys: " + KEYS);
            }
            String key = part.substring(0, eq).strip().toLowerCase(Locale.ROOT);
            if (!Set.of("name", "hosts", "placement", "pattern", "load", "mode", "message").contains(key)) {
                throw invalid(text, "unknown key " + Excerpt.quote(key) + "; keys: " + KEYS);
            }
            if (kv.put(key, part.substring(eq + 1).strip()) != null) {
                throw invalid(text, "key " + key + " given twice");
            }
        }
        String name = kv.getOrDefault("name", "job" + (index + 1));
        if (!name.matches("[A-Za-z0-9_.-]{1,40}")) {
            throw invalid(text, "name " + Excerpt.quote(name) + " is not 1 to 40 letters, digits, '_', '.' or '-'");
        }
        String where = "job " + name + ": ";
        if (!kv.containsKey("hosts")) {
            throw invalid(text, where + "hosts=N is required (the job's ranks, 2 or more)");
        }
        int hosts;
        try {
            hosts = Integer.parseInt(kv.get("hosts"));
        } catch (NumberFormatException e) {
            hosts = -1;
        }
        if (hosts < 2) {
            throw invalid(text, where + "hosts=" + Excerpt.quote(kv.get("hosts")) + " is not a whole number of 2 or more");
        }
        Placement placement;
        try {
            placement = Placement.byName(kv.getOrDefault("placement", "contiguous"));
        } catch (IllegalArgumentException e) {
            throw invalid(text, where + e.getMessage());
        }
        String patternName = kv.getOrDefault("pattern", "random").toLowerCase(Locale.ROOT);
        ClosedLoop.Kind loop = ClosedLoop.Kind.byCliName(patternName);
        if (loop == ClosedLoop.Kind.PING_PONG && hosts != 2) {
            throw invalid(text, where + "ping-pong runs between two hosts: give hosts=2, not " + hosts);
        }
        if (loop != null && kv.containsKey("load")) {
            throw invalid(text, where + loop.cliName() + " is closed-loop (a rank sends when it has received): it takes no load=");
        }
        TrafficPattern pattern = loop != null ? TrafficPattern.UNIFORM : switch (patternName) {
            case "random", "uniform" -> TrafficPattern.UNIFORM;
            case "all-to-all" -> TrafficPattern.ALL_TO_ALL;
            case "allreduce-ring", "ring" -> TrafficPattern.ALLREDUCE_RING;
            case "halo3d" -> TrafficPattern.HALO3D;
            case "permutation" -> TrafficPattern.PERMUTATION;
            default -> throw invalid(text, where + "unknown pattern " + Excerpt.quote(patternName) + "; use " + PATTERNS);
        };
        Double load = null;
        if (kv.containsKey("load")) {
            try {
                load = Double.parseDouble(kv.get("load"));
            } catch (NumberFormatException e) {
                load = Double.NaN;
            }
            if (!(load > 0 && load <= 1)) {
                throw invalid(text, where + "load=" + Excerpt.quote(kv.get("load")) + " is not in (0, 1]: a fraction of the link rate");
            }
        }
        RoutingMode mode = null;
        boolean appAware = APP_AWARE.equalsIgnoreCase(kv.getOrDefault("mode", ""));
        if (kv.containsKey("mode") && !appAware) {
            try {
                mode = RoutingMode.byName(kv.get("mode"));
            } catch (IllegalArgumentException e) {
                throw invalid(text, where + e.getMessage() + ", or " + APP_AWARE);
            }
        }
        long message = kv.containsKey("message") ? bytes(kv.get("message")) : 0;
        if (kv.containsKey("message") && (message < 1 || message > MAX_MESSAGE_BYTES)) {
            throw invalid(text, where + "message=" + Excerpt.quote(kv.get("message")) + " is not a size of 1 byte to 1GiB (e.g. 4096, 64KiB, 1MiB)");
        }
        return new JobSpec(name, hosts, placement, patternName, pattern, load, appAware ? RoutingMode.ADAPTIVE_0 : mode, message, appAware,
                loop);
    }

    /** {@code 4096}, {@code 64KiB} / {@code 64k}, {@code 1MiB} / {@code 1m} in bytes; -1 if none of these. */
    static long bytes(String v) {
        String s = v.strip().toLowerCase(Locale.ROOT);
        long unit = 1;
        if (s.endsWith("kib") || s.endsWith("k")) {
            unit = 1024;
        } else if (s.endsWith("mib") || s.endsWith("m")) {
            unit = 1024 * 1024;
        }
        String digits = s.replaceAll("(kib|mib|k|m)$", "");
        if (digits.isEmpty() || digits.length() > 10 || !digits.chars().allMatch(Character::isDigit)) {
            return -1;
        }
        return Long.parseLong(digits) * unit;
    }

    private static IllegalArgumentException invalid(String text, String why) {
        return new IllegalArgumentException("Invalid value for option '--job': " + Excerpt.quote(text) + ": " + why);
    }

    /**
     * Every spec placed on {@code fabric}, in the order given, each on hosts the earlier left free
     * (random placement drawn from {@code seed}); a message is {@code payloadBytes} per packet.
     *
     * @throws IllegalArgumentException one line naming the job that does not fit and why
     */
    static List<Simulation.Job> place(List<JobSpec> specs, Fabric fabric, long seed, double load, RoutingMode mode, int payloadBytes,
                                      int sourceQueuePackets) {
        int n = fabric.endpointCount();
        int[] groups = new int[n];
        for (int e = 0; e < n; e++) {
            groups[e] = fabric.group(fabric.endpointNode(e));
        }
        boolean[] taken = new boolean[n];
        SplittableRandom random = new SplittableRandom(seed ^ 0x6A09E667F3BCC909L);
        Set<String> names = new HashSet<>();
        List<Simulation.Job> jobs = new ArrayList<>();
        for (JobSpec s : specs) {
            if (!names.add(s.name())) {
                throw new IllegalArgumentException("Invalid value for option '--job': two jobs are named " + s.name());
            }
            int packets = 1;
            if (s.messageBytes() > 0) {
                if (payloadBytes == 0) {
                    throw new IllegalArgumentException("Invalid value for option '--job': job " + s.name() + " sends messages of "
                            + s.messageBytes() + " bytes, but packets carry no payload (--payload 0)");
                }
                packets = (int) Math.min(Integer.MAX_VALUE, (s.messageBytes() + payloadBytes - 1) / payloadBytes);
                if (packets > sourceQueuePackets) {
                    throw new IllegalArgumentException("Invalid value for option '--job': job " + s.name() + "'s messages of "
                            + s.messageBytes() + " bytes are " + packets + " packets of " + payloadBytes + " bytes' payload, more than "
                            + "a host's source queue holds (" + sourceQueuePackets + "); give a larger --source-queue or --packet-bytes");
                }
            }
            if (s.loop() != null) {
                int atOnce = ClosedLoop.messagesQueuedAtOnce(s.loop(), s.hosts());
                if ((long) atOnce * packets > sourceQueuePackets) {
                    throw new IllegalArgumentException("Invalid value for option '--job': job " + s.name() + " (" + s.loop().cliName() + " of "
                            + s.hosts() + " ranks) may queue " + atOnce + " messages of " + packets + " packets at one rank at once, "
                            + (long) atOnce * packets + " packets, more than a host's source queue holds (" + sourceQueuePackets
                            + "); give a larger --source-queue, smaller messages or fewer ranks");
                }
            }
            int[] hosts;
            try {
                hosts = s.placement().place(s.hosts(), taken, groups, random);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("Invalid value for option '--job': job " + s.name() + " " + e.getMessage()
                        + " of the fabric's " + n);
            }
            // a closed loop offers what its loop lets through: no load (NaN), neither the run's nor its own
            jobs.add(new Simulation.Job(s.name(), hosts, s.pattern(), s.loop() != null ? Double.NaN : s.load() == null ? load : s.load(),
                    s.mode() == null ? mode : s.mode(), packets, s.appAware(), s.loop()));
        }
        return jobs;
    }
}
