package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

// TestE2E_Fleet_TLS: `serve --bus rediss://` against Debian's
// redis-server with TLS on, its certificate signed by a private CA. A
// replica that does not trust the CA never joins (the handshake fails, and
// the log says why); one given the CA the way docs/scaling.md says
// (SSL_CERT_FILE) joins: the test, on redis-server's plain loopback port,
// sees it subscribed.
func TestE2E_Fleet_TLS(t *testing.T) {
	pki := writePKI(t)
	plain, tlsPort := freePort(t), freePort(t)
	for tlsPort == plain {
		tlsPort = freePort(t)
	}
	r := startRedisOn(t, plain, "--tls-port", strconv.Itoa(tlsPort), "--tls-cert-file", pki.cert, "--tls-key-file", pki.key,
		"--tls-ca-cert-file", pki.ca, "--tls-auth-clients", "no")

	dir := t.TempDir()
	url := "rediss://localhost:" + strconv.Itoa(tlsPort) + "/0"
	args := []string{"--allow-dir", dir, "--bus", url, "--keys-file", fleetKeys(t)}

	t.Run("untrusted CA", func(t *testing.T) {
		srv := startHTTP(t, []string{"SSL_CERT_FILE=" + filepath.Join(t.TempDir(), "none.pem")}, args...)
		testkit.Eventually(t, func() bool { return strings.Contains(srv.logs(), "certificate signed by unknown authority") },
			"the failed handshake is logged")
		n, err := r.rdb.Listeners(context.Background())
		require.NoError(t, err)
		require.Zero(t, n, "a replica that does not trust the server's certificate never subscribes")
		require.NoError(t, srv.stop(t))
	})
	t.Run("trusted CA", func(t *testing.T) {
		srv := startHTTP(t, []string{"SSL_CERT_FILE=" + pki.ca}, args...)
		testkit.Eventually(t, func() bool {
			n, err := r.rdb.Listeners(context.Background())
			return err == nil && n == 1
		}, "the replica subscribes over TLS")
		require.NotContains(t, srv.logs(), "bus connection lost")
	})
}

// pki is a private CA and a server certificate it signed, for localhost
// and 127.0.0.1, as PEM files.
type pki struct{ ca, cert, key string }

func writePKI(t *testing.T) pki {
	t.Helper()
	dir := t.TempDir()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "mcp-wasm test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	require.NoError(t, err)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	leaf := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	caCert, err := x509.ParseCertificate(caDER)
	require.NoError(t, err)
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &key.PublicKey, caKey)
	require.NoError(t, err)
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	require.NoError(t, err)
	p := pki{ca: filepath.Join(dir, "ca.pem"), cert: filepath.Join(dir, "cert.pem"), key: filepath.Join(dir, "key.pem")}
	for path, block := range map[string]*pem.Block{
		p.ca:   {Type: "CERTIFICATE", Bytes: caDER},
		p.cert: {Type: "CERTIFICATE", Bytes: leafDER},
		p.key:  {Type: "PRIVATE KEY", Bytes: keyDER},
	} {
		require.NoError(t, os.WriteFile(path, pem.EncodeToMemory(block), 0o600))
	}
	return p
}
