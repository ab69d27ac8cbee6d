package org.fabriclab.emulator.cli;

import org.fabriclab.cli.NamedValues;

/**
 * {@code on} or {@code off}, for switches that are options ({@code --adaptive}). An enum, not a
 * boolean: picocli reads a boolean option as a flag whatever its converter.
 */
public final class OnOff extends NamedValues<OnOff.Setting> {
    /** The value of an on/off option. */
    public enum Setting {
        ON, OFF;

        public boolean on() {
            return this == ON;
        }
    }

    public OnOff() {
        super("setting", table("on", Setting.ON, "off", Setting.OFF));
    }
}
