package org.fabriclab.agent.mgmt;

import io.grpc.HandlerRegistry;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Routes management calls to one of many nodes served by one gRPC server, by the call's
 * {@code :authority}: the node's GUID in hex. One TCP server (and one client connection) then
 * serves thousands of emulated nodes, whose endpoints are written {@code HOST:PORT/GUID}; a call
 * for an unknown GUID is UNIMPLEMENTED, as for any method the server does not have.
 */
public final class NodeRoutingRegistry extends HandlerRegistry {
    private final Map<String, ServerServiceDefinition> byAuthority = new ConcurrentHashMap<>();

    /** The authority a node's calls carry. */
    public static String authority(long guid) {
        return Long.toHexString(guid);
    }

    public void add(ManagedNode node) {
        byAuthority.put(authority(node.identity().guid()), ManagementService.definition(node));
    }

    @Override
    public ServerMethodDefinition<?, ?> lookupMethod(String methodName, String authority) {
        if (authority == null) {
            return null;
        }
        ServerServiceDefinition s = byAuthority.get(authority);
        return s == null ? null : s.getMethod(methodName);
    }
}
