package server

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"math/big"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// selfSigned returns a certificate for 127.0.0.1 and a pool trusting it.
func selfSigned(t testing.TB) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	leaf, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// TestServeStreamable_TLS: with a certificate the server speaks HTTPS
// (HTTP/2 included), both eras work over it, and plain HTTP is refused.
func TestServeStreamable_TLS(t *testing.T) {
	cert, pool := selfSigned(t)
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, stop := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- s.ServeStreamable(ctx, ln, NewHTTPConfig().WithTLS(&tls.Config{Certificates: []tls.Certificate{cert}}))
	}()
	url := "https://" + ln.Addr().String() + MCPPath
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}}
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		cs := connectHTTP(t, url, v, hc, nil)
		res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "notes:///hello"})
		require.NoError(t, err, v)
		require.Equal(t, "Hello, world", res.Contents[0].Text)
	}
	resp, err := hc.Get("https://" + ln.Addr().String() + HealthzPath)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 2, resp.ProtoMajor, "HTTP/2 over TLS")

	plain, err := http.Get("http://" + ln.Addr().String() + HealthzPath)
	if err == nil {
		plain.Body.Close()
		require.Equal(t, http.StatusBadRequest, plain.StatusCode, "plain HTTP to a TLS port")
	}
	stop()
	require.NoError(t, <-done)
}

func TestHTTPConfig_TLSNeedsCertificate(t *testing.T) {
	require.ErrorContains(t, NewHTTPConfig().WithTLS(&tls.Config{}).validate(), "no certificate")
}
