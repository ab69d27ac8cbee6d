/** The {@code file} engine: replays an OpenSM LFT dump, re-mapping LIDs by port GUID. */
package org.fabriclab.routing.engine.file;
