/** LID assignment (LMC 0), stable across runs through OpenSM's guid2lid file format. */
package org.fabriclab.routing.lid;
