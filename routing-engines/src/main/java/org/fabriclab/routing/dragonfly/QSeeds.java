package org.fabriclab.routing.dragonfly;

/**
 * Where Q-adaptive's learning starts: a router's Q-table before any packet, in nanoseconds, as the
 * paper initialises it ("the theoretical packet delivery time without any congestion through a
 * minimal routing path", section 5.1) and as its simulator computes that: the time to reach the
 * destination group, so the column of a global port leading straight to the row's group holds one
 * global hop, every other column one global and one local hop. A hop is the packet's time on the
 * wire plus the cable's delay. Rows of the router's own group are never read (it routes minimally
 * there) and hold 0.
 */
public final class QSeeds {
    private QSeeds() {
    }

    /**
     * The paper's seed for router {@code r}.
     *
     * @param localHopNs  a packet's time across a local link (serialisation plus delay)
     * @param globalHopNs a packet's time across a global link
     */
    public static float[] minimal(DragonflySwitch r, double localHopNs, double globalHopNs) {
        int cols = r.columns();
        float[] q = new float[r.rows() * cols];
        for (int t = 0; t < r.groups(); t++) {
            if (t == r.group()) {
                continue;
            }
            for (int slot = 0; slot < r.hostsPerRouter(); slot++) {
                int row = r.row(t, slot);
                for (int c = 0; c < cols; c++) {
                    int p = r.portOfColumn(c);
                    boolean direct = r.kind(p) == DragonflySwitch.GLOBAL && r.peer(p) == t;
                    q[row * cols + c] = (float) (direct ? globalHopNs : globalHopNs + localHopNs);
                }
            }
        }
        return q;
    }
}
