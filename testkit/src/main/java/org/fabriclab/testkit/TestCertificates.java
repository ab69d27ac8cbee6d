package org.fabriclab.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Real certificates for TLS tests, made by the JDK's own {@code keytool} (no library, nothing
 * checked in, nothing that expires between runs): a CA, a server certificate the CA signed for
 * {@code localhost} and {@code 127.0.0.1}, and a client certificate the CA signed, each written as
 * PEM (certificates) and unencrypted PKCS#8 PEM (keys), as the daemon's and fabricctl's options
 * take them. A second, unrelated CA lets a test show a certificate is refused by who signed it.
 */
public final class TestCertificates {
    private static final String PASSWORD = "changeit";

    /** The files: {@code ca.pem}; {@code server.pem} / {@code server-key.pem}; {@code client.pem} / {@code client-key.pem}; {@code other-ca.pem}. */
    public record Pems(Path ca, Path serverCert, Path serverKey, Path clientCert, Path clientKey, Path otherCa) {
    }

    private TestCertificates() {
    }

    /** Makes the certificates in {@code dir} (about a second of keytool runs). */
    public static Pems make(Path dir) throws IOException, InterruptedException, GeneralSecurityException {
        Path store = dir.resolve("keys.p12");
        keytool(dir, "-genkeypair", "-alias", "ca", "-dname", "CN=fabriclab test CA", "-ext", "bc:c", "-keyalg", "EC", "-groupname",
                "secp256r1", "-validity", "2", "-keystore", store.toString());
        keytool(dir, "-genkeypair", "-alias", "other", "-dname", "CN=unrelated CA", "-ext", "bc:c", "-keyalg", "EC", "-groupname",
                "secp256r1", "-validity", "2", "-keystore", store.toString());
        for (String who : List.of("server", "client")) {
            keytool(dir, "-genkeypair", "-alias", who, "-dname", "CN=" + who, "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
                    "-keystore", store.toString());
            Path request = dir.resolve(who + ".csr");
            Path cert = dir.resolve(who + ".pem");
            keytool(dir, "-certreq", "-alias", who, "-file", request.toString(), "-keystore", store.toString());
            List<String> sign = new ArrayList<>(List.of("-gencert", "-alias", "ca", "-infile", request.toString(), "-outfile",
                    cert.toString(), "-rfc", "-validity", "2", "-keystore", store.toString()));
            sign.addAll(who.equals("server") ? List.of("-ext", "san=dns:localhost,ip:127.0.0.1", "-ext", "eku=serverAuth")
                    : List.of("-ext", "eku=clientAuth"));
            keytool(dir, sign.toArray(new String[0]));
        }
        keytool(dir, "-exportcert", "-alias", "ca", "-rfc", "-file", dir.resolve("ca.pem").toString(), "-keystore", store.toString());
        keytool(dir, "-exportcert", "-alias", "other", "-rfc", "-file", dir.resolve("other-ca.pem").toString(), "-keystore", store.toString());
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            ks.load(in, PASSWORD.toCharArray());
        }
        for (String who : List.of("server", "client")) {
            Key key = ks.getKey(who, PASSWORD.toCharArray());
            String pem = "-----BEGIN PRIVATE KEY-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                    .encodeToString(key.getEncoded()) + "\n-----END PRIVATE KEY-----\n";
            Files.writeString(dir.resolve(who + "-key.pem"), pem, StandardCharsets.US_ASCII);
        }
        return new Pems(dir.resolve("ca.pem"), dir.resolve("server.pem"), dir.resolve("server-key.pem"), dir.resolve("client.pem"),
                dir.resolve("client-key.pem"), dir.resolve("other-ca.pem"));
    }

    private static void keytool(Path dir, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(), "-noprompt",
                "-storetype", "PKCS12", "-storepass", PASSWORD, "-keypass", PASSWORD));
        cmd.addAll(List.of(args));
        Path log = dir.resolve("keytool.log");
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!p.waitFor(2, TimeUnit.MINUTES) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException("keytool " + String.join(" ", args) + " failed: " + Files.readString(log));
        }
    }
}
