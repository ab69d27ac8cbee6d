/**
 * What error messages may repeat of the input they refuse ({@link org.fabriclab.routing.text.Excerpt}):
 * bounded, printable quotes, shared by every package and module that refuses input (the file
 * formats, node sets, the management and admin services). JDK only; no parsing lives here.
 */
package org.fabriclab.routing.text;
