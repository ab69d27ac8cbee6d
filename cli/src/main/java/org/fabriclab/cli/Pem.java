package org.fabriclab.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The files an option may name for TLS and secrets, read and checked with the JDK alone, so that a
 * wrong file is refused with one line naming the option, the file and the fix before anything
 * starts: PEM certificates, an unencrypted PKCS#8 private key (RSA, EC or Ed25519) that must belong
 * to its certificate, and secrets (an admin token, an M_Key) kept in a file of their own.
 */
public final class Pem {
    private static final String BEGIN_KEY = "-----BEGIN PRIVATE KEY-----";
    private static final String END_KEY = "-----END PRIVATE KEY-----";

    private Pem() {
    }

    /** The PEM certificates in {@code file}, at least one. */
    public static List<X509Certificate> certificates(String option, Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            List<X509Certificate> out = new ArrayList<>();
            for (Certificate cert : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                out.add((X509Certificate) cert);
            }
            if (out.isEmpty()) {
                throw new IllegalArgumentException(option + " " + file + " holds no certificate (PEM, -----BEGIN CERTIFICATE-----)");
            }
            return out;
        } catch (IOException e) {
            throw new IllegalArgumentException(option + ": cannot read " + file + " (" + why(e) + ")");
        } catch (CertificateException e) {
            throw new IllegalArgumentException(option + " " + file + " holds no PEM certificate (" + e.getMessage() + ")");
        }
    }

    /** The unencrypted PKCS#8 private key in {@code file} (PEM, -----BEGIN PRIVATE KEY-----): RSA, EC or Ed25519. */
    public static PrivateKey privateKey(String option, Path file) {
        String pem;
        try {
            pem = Files.readString(file, StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new IllegalArgumentException(option + ": cannot read " + file + " (" + why(e) + ")");
        }
        if (pem.contains("-----BEGIN RSA PRIVATE KEY-----") || pem.contains("-----BEGIN EC PRIVATE KEY-----")) {
            throw new IllegalArgumentException(option + " " + file + " is a PKCS#1 or SEC1 key; give it as PKCS#8: "
                    + "openssl pkcs8 -topk8 -nocrypt -in " + file + " -out KEY.pem");
        }
        if (pem.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----")) {
            throw new IllegalArgumentException(option + " " + file + " is encrypted; give the key unencrypted (PKCS#8), readable by its owner only");
        }
        int from = pem.indexOf(BEGIN_KEY);
        int to = pem.indexOf(END_KEY);
        if (from < 0 || to < from) {
            throw new IllegalArgumentException(option + " " + file + " holds no PEM private key (" + BEGIN_KEY + ")");
        }
        byte[] der;
        try {
            der = Base64.getMimeDecoder().decode(pem.substring(from + BEGIN_KEY.length(), to));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + " " + file + ": the key is not base64 (" + e.getMessage() + ")");
        }
        for (String algorithm : new String[] {"RSA", "EC", "Ed25519"}) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException e) {
                // try the next algorithm
            }
        }
        throw new IllegalArgumentException(option + " " + file + " is not an RSA, EC or Ed25519 private key");
    }

    /**
     * The certificate chain in {@code certFile} and the key in {@code keyFile}, which must be the
     * key of the chain's first certificate (it signs what that certificate's public key verifies).
     */
    public static KeyStore keyStore(String certOption, Path certFile, String keyOption, Path keyFile) {
        List<X509Certificate> chain = certificates(certOption, certFile);
        PrivateKey key = privateKey(keyOption, keyFile);
        if (!belongTogether(chain.get(0), key)) {
            throw new IllegalArgumentException(keyOption + " " + keyFile + " is not the key of the certificate in " + certFile + " ("
                    + chain.get(0).getSubjectX500Principal() + ")");
        }
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry("key", key, new char[0], chain.toArray(new Certificate[0]));
            return store;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException(certOption + " " + certFile + ": cannot hold the certificate and key (" + e + ")");
        }
    }

    /** The certificates in {@code file} as a trust store. */
    public static KeyStore trustStore(String option, Path file) {
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            int i = 0;
            for (X509Certificate c : certificates(option, file)) {
                store.setCertificateEntry("ca" + i++, c);
            }
            return store;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException(option + " " + file + ": cannot trust its certificates (" + e + ")");
        }
    }

    /** An I/O failure as a reader of the message would say it: "no such file", not the exception's class. */
    public static String why(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof FileSystemException f && f.getReason() != null) {
            return f.getReason();
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    /** True if {@code key} signs what {@code cert}'s public key verifies. */
    static boolean belongTogether(X509Certificate cert, PrivateKey key) {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            default -> key.getAlgorithm();
        };
        try {
            byte[] probe = new byte[32];
            new SecureRandom().nextBytes(probe);
            Signature sign = Signature.getInstance(algorithm);
            sign.initSign(key);
            sign.update(probe);
            byte[] signature = sign.sign();
            Signature verify = Signature.getInstance(algorithm);
            verify.initVerify(cert.getPublicKey());
            verify.update(probe);
            return verify.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    /**
     * The first line of a file holding a secret (an admin token, an M_Key), stripped; {@code warn}
     * is told when others than its owner may read the file.
     *
     * @throws IllegalArgumentException if it cannot be read or is empty, naming {@code option} and the file
     */
    public static String secret(String option, Path file, Consumer<String> warn) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalArgumentException(option + ": cannot read " + file + " (" + why(e) + ")");
        }
        try {
            Set<PosixFilePermission> p = Files.getPosixFilePermissions(file);
            if (p.contains(PosixFilePermission.GROUP_READ) || p.contains(PosixFilePermission.OTHERS_READ)) {
                warn.accept(file + " is readable by others than its owner (" + PosixFilePermissions.toString(p) + "); chmod 600 " + file);
            }
        } catch (UnsupportedOperationException | IOException e) {
            // not a POSIX file system: nothing to check
        }
        String first = text.lines().findFirst().orElse("").strip();
        if (first.isEmpty()) {
            throw new IllegalArgumentException(option + ": " + file + " is empty");
        }
        return first;
    }
}
