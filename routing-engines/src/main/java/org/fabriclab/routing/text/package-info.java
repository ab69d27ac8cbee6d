/**
 * How input appears in the messages that refuse it ({@link org.fabriclab.routing.text.Echo}). Every
 * package may use it; it uses nothing of the project.
 */
package org.fabriclab.routing.text;
