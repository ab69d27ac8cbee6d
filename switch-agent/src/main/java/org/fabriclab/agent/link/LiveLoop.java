package org.fabriclab.agent.link;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import org.fabriclab.agent.core.ClosedLoop;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A closed-loop job on the live plane: the core's {@link ClosedLoop} (the simulator's), shared by
 * the job's hosts, each rank's {@link LiveHost} telling it, on its own event loop, that a message
 * from another rank has been received whole, and doing what it answers. The loop's state is
 * guarded by this object's lock, held only while the loop decides: what it answers is collected
 * into the asking host's {@link Answers} (confined to that host's event loop) and done after the
 * lock is let go, so that no host's sending runs under another's lock. A message rank i is to
 * send goes to rank i's host: at once on its own loop (ping-pong's answer, a barrier's next
 * round, a broadcast's forwarding), posted to it from another's (the broadcast's next iteration,
 * which the last rank to receive starts at rank 0; the first iteration). An iteration ended is
 * counted by rank 0's host ({@link LiveHost}), posted to it likewise.
 *
 * <p>Times are the hosts' model time (one clock for the fabric, {@link ModelClock}): an
 * iteration's time is a real round trip, barrier or broadcast over the live links, stretched by
 * the time dilation D in wall time and reported divided by it, and includes what the event loops
 * add (source queue, NIC, frame handling, the tasks posted between hosts).
 */
public final class LiveLoop {
    private static final Logger LOG = LoggerFactory.getLogger(LiveLoop.class);
    private final ClosedLoop loop;
    private final LiveHost[] hosts;
    /** A host's source queue refused one of the loop's messages, and it was logged (once per job). */
    private final AtomicBoolean refusalLogged = new AtomicBoolean();

    /** {@code loop} run by {@code hosts}, rank r on {@code hosts[r]}. */
    public LiveLoop(ClosedLoop loop, LiveHost[] hosts) {
        if (hosts.length != loop.ranks()) {
            throw new IllegalArgumentException("the loop has " + loop.ranks() + " ranks but " + hosts.length + " hosts were given");
        }
        this.loop = loop;
        this.hosts = hosts.clone();
    }

    /** Ranks: the job's hosts. */
    int ranks() {
        return loop.ranks();
    }

    /** The microbenchmark it runs (application-aware routing's default follows it). */
    ClosedLoop.Kind kind() {
        return loop.kind();
    }

    /** Packets per message. */
    int messagePackets() {
        return loop.messagePackets();
    }

    /** The most whole messages one rank may have queued at once ({@link ClosedLoop#messagesQueuedAtOnce}). */
    int messagesQueuedAtOnce() {
        return ClosedLoop.messagesQueuedAtOnce(loop.kind(), loop.ranks());
    }

    /**
     * A host's source queue refused a message of this loop (full): logged for the first of the
     * job's, from any host's event loop. The host keeps the message and queues it when there is
     * room, so the loop goes on, slowed; the command lines refuse a job whose messages may not fit
     * at once, so this happens only to a loop started past them with a queue too small.
     */
    void refused(String job, String host, int rank, int messagePackets, int queuePackets, int room) {
        if (refusalLogged.compareAndSet(false, true)) {
            LOG.warn("job {}: host {} (rank {}) could not queue a closed-loop message of {} packets: its source queue of {} packets "
                    + "had room for {}; the message waits, and the loop with it, until the queue has room (every such message is "
                    + "counted in fabric_job_refused_messages_total; only this first is logged). A {} loop of {} ranks may queue {} "
                    + "messages at a rank at once: give a --source-queue of {} packets or more", job, host, rank, messagePackets,
                    queuePackets, room, loop.kind().cliName(), loop.ranks(), messagesQueuedAtOnce(),
                    (long) messagesQueuedAtOnce() * messagePackets);
        }
    }

    /** A new {@link Answers} for one host of this loop (confined to its event loop). */
    Answers answers() {
        return new Answers();
    }

    /** Starts the first iteration, on rank 0's host (call once every rank's host runs its traffic, {@link LiveHost#start}). */
    public void start() {
        LiveHost root = hosts[0];
        root.executeEvent(() -> {
            Answers a = root.loopAnswers();
            synchronized (this) {
                loop.start(root.modelNow(), a);
            }
            a.carryOut(root);
        });
    }

    /** On rank {@code to}'s host's event loop: it has received the whole of a message from rank {@code from} at {@code now}. */
    void received(int from, int to, long now, Answers a) {
        synchronized (this) {
            loop.received(from, to, now, a);
        }
        a.carryOut(hosts[to]);
    }

    /**
     * What the loop answered one host, in order, until carried out: a send (from, to) or an
     * iteration (-1 - start, end). Confined to the host's event loop; grows to the most one answer
     * holds (a broadcast root's children twice, a barrier's rounds, a sweep3d corner's blocks of up to
     * two sweeps), then allocates no more.
     */
    final class Answers implements ClosedLoop.Actions {
        private long[] a = new long[16];
        private int n;
        /**
         * Carrying out: a receipt handled from inside one of this host's sends (not today: the links
         * flush in tasks of their own) appends its answers, and the loop under way carries them out.
         */
        private boolean carrying;

        @Override
        public void send(int from, int to, long now) {
            add(from, to);
        }

        @Override
        public void iteration(long start, long end) {
            add(-1 - start, end);
        }

        private void add(long x, long y) {
            if (n + 2 > a.length) {
                a = Arrays.copyOf(a, a.length * 2);
            }
            a[n++] = x;
            a[n++] = y;
        }

        /** Carries out what was answered, on {@code self}'s event loop: its own sends at once, the others' posted to their hosts. */
        void carryOut(LiveHost self) {
            if (carrying) {
                return;
            }
            carrying = true;
            for (int i = 0; i < n; i += 2) {
                long x = a[i];
                long y = a[i + 1];
                if (x < 0) {
                    long start = -1 - x;
                    LiveHost root = hosts[0];
                    if (root == self) {
                        root.loopIteration(start, y);
                    } else {
                        root.execute(() -> root.loopIteration(start, y));
                    }
                    continue;
                }
                LiveHost from = hosts[(int) x];
                int to = (int) y;
                if (from == self) {
                    from.loopSend(to);
                } else {
                    from.executeEvent(() -> from.loopSend(to));
                }
            }
            n = 0;
            carrying = false;
        }
    }
}
