package org.fabriclab.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A child process's output, line by line, as it comes: for tests that run a command as a process and wait on what it prints. */
public final class ProcessOutput {
    private ProcessOutput() {
    }

    /**
     * The lines {@code process} prints on its standard output (with {@code redirectErrorStream}, its
     * errors too), filled by a daemon thread named {@code threadName} until the stream ends; a read
     * that fails adds one line saying so.
     */
    public static List<String> follow(Process process, String threadName) {
        List<String> output = new CopyOnWriteArrayList<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    output.add(line);
                }
            } catch (IOException e) {
                output.add("(output ended: " + e + ")");
            }
        }, threadName);
        reader.setDaemon(true);
        reader.start();
        return output;
    }
}
