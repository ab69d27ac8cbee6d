package org.fabriclab.agent.mgmt;

import io.grpc.HandlerRegistry;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Routes management calls to one of many nodes served by one gRPC server, by the call's
 * {@code :authority}: the node's GUID in hex. One TCP server (and one client connection) then
 * serves thousands of emulated nodes, whose endpoints are written {@code HOST:PORT/GUID}; a call
 * for an unknown GUID is UNIMPLEMENTED, as for any method the server does not have. A call whose
 * authority is no GUID at all (a client that dialled {@code HOST:PORT} alone, whose authority is
 * then that) goes to the {@linkplain #seed seed} node, if one is set: a manager can be pointed at
 * the server without knowing a GUID (the helm chart's single-pod fabric).
 */
public final class NodeRoutingRegistry extends HandlerRegistry {
    /** What {@link #authority} writes. */
    private static final Pattern GUID = Pattern.compile("[0-9a-f]{1,16}");
    private final Map<String, ServerServiceDefinition> byAuthority = new ConcurrentHashMap<>();
    private volatile ServerServiceDefinition seed;

    /** The authority a node's calls carry. */
    public static String authority(long guid) {
        return Long.toHexString(guid);
    }

    public void add(ManagedNode node) {
        byAuthority.put(authority(node.identity().guid()), ManagementService.definition(node));
    }

    /** The node that answers calls whose authority is not a GUID; {@code node} must have been added. */
    public void seed(ManagedNode node) {
        seed = byAuthority.get(authority(node.identity().guid()));
    }

    @Override
    public ServerMethodDefinition<?, ?> lookupMethod(String methodName, String authority) {
        if (authority == null) {
            return null;
        }
        ServerServiceDefinition s = byAuthority.get(authority);
        if (s == null && !GUID.matcher(authority).matches()) {
            s = seed;
        }
        return s == null ? null : s.getMethod(methodName);
    }
}
