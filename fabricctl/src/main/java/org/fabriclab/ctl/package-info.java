/**
 * {@code fabricctl}: the admin CLI. Offline verbs route and print fabrics with the routing library
 * alone; daemon verbs (status, trace, dump, sweep) arrive with the control plane.
 */
package org.fabriclab.ctl;
