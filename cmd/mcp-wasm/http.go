package main

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mcp-wasm/mcp-wasm/config"
	"github.com/mcp-wasm/mcp-wasm/internal/hostfile"
	"github.com/mcp-wasm/mcp-wasm/server"
	"github.com/mcp-wasm/mcp-wasm/server/auth"
)

// httpCategory groups the transport flags in serve --help.
const httpCategory = "Streamable HTTP (with --http)"

// httpFlags are serve's transport, authentication and audit flags.
func httpFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{Name: "http", Category: httpCategory, Usage: "serve Streamable HTTP at `ADDR`/mcp instead of stdio (PORT or :PORT binds 127.0.0.1; 0.0.0.0:PORT binds every interface)"},
		&cli.StringSliceFlag{Name: "allowed-host", Category: httpCategory, Usage: "accept `HOST` in the Host header besides localhost on loopback (repeatable; *.example.com, or * for any); required off loopback"},
		&cli.StringSliceFlag{Name: "allowed-origin", Category: httpCategory, Usage: "accept browser `ORIGIN` (scheme://host[:port]) besides same-origin and localhost on loopback (repeatable)"},
		&cli.StringFlag{Name: "max-body", Category: httpCategory, Value: "1MiB", Usage: "largest request body (413 beyond)"},
		&cli.Float64Flag{Name: "rate-limit", Category: httpCategory, Value: server.DefaultRateLimit, DefaultText: "50, off on a loopback bind without tokens or --trusted-proxy",
			Usage: "requests per second per client (a principal: token kind or issuer, and subject; an address when anonymous; 429 beyond); 0 disables"},
		&cli.IntFlag{Name: "rate-burst", Category: httpCategory, Value: server.DefaultRateBurst, Usage: "requests a client may send at once"},
		&cli.StringSliceFlag{Name: "trusted-proxy", Category: httpCategory, Usage: "believe X-Forwarded-For from proxies in `CIDR` (or IP) for the rate limit and audit (repeatable)"},
		&cli.IntFlag{Name: "max-sessions", Category: httpCategory, Value: server.DefaultMaxSessions, Usage: "legacy sessions open at once (503 beyond)"},
		&cli.IntFlag{Name: "max-sessions-per-client", Category: httpCategory, Value: server.DefaultMaxSessionsPerClient, DefaultText: "100, off on a loopback bind without tokens or --trusted-proxy",
			Usage: "legacy sessions one client (a principal: token kind or issuer, and subject; an address when anonymous) may hold (429 beyond); 0 removes this bound"},
		&cli.DurationFlag{Name: "session-timeout", Category: httpCategory, Value: server.DefaultSessionIdleTimeout, Usage: "close a legacy session after this long without requests (an open GET stream counts as one)"},
		&cli.DurationFlag{Name: "write-timeout", Category: httpCategory, Value: server.DefaultWriteTimeout,
			Usage: "close a response or event stream whose client has not taken a write (up to 64 KiB) within this long"},
		&cli.DurationFlag{Name: "keepalive", Category: httpCategory, Value: server.DefaultKeepAlive, Usage: "SSE keep-alive comment interval on idle event streams"},
		&cli.StringFlag{Name: "tls-cert", Category: httpCategory, Usage: "serve HTTPS with the certificate chain in PEM `FILE` (with --tls-key)"},
		&cli.StringFlag{Name: "tls-key", Category: httpCategory, Usage: "private key PEM `FILE` of --tls-cert"},
		&cli.StringFlag{Name: "auth-token-file", Category: httpCategory, Usage: "require a bearer token listed in `FILE` (one per line: TOKEN, or SUBJECT TOKEN; # comments)"},
		&cli.StringFlag{Name: "auth-token-env", Category: httpCategory, Usage: "require the bearer token held by environment variable `NAME`"},
		&cli.StringFlag{Name: "oauth-issuer", Category: httpCategory, Usage: "OAuth 2.1: accept JWT access tokens from issuer `URL` (with --oauth-resource)"},
		&cli.StringFlag{Name: "oauth-resource", Category: httpCategory, Usage: "OAuth 2.1: this server's public `URL`, e.g. https://mcp.example.com/mcp (RFC 9728 resource, default audience)"},
		&cli.StringFlag{Name: "oauth-audience", Category: httpCategory, Usage: "OAuth 2.1: required token audience `AUD` (default: --oauth-resource)"},
		&cli.StringFlag{Name: "oauth-jwks-url", Category: httpCategory, Usage: "OAuth 2.1: the issuer's key set `URL` (default: from the issuer's metadata)"},
		&cli.StringSliceFlag{Name: "oauth-scope", Category: httpCategory, Usage: "OAuth 2.1: `SCOPE` every token must carry (repeatable)"},
		&cli.StringFlag{Name: "cursor-key-env", Usage: "environment variable `NAME` holding the secret (16+ bytes) that signs list cursors; give every replica the same one (default: --keys-file)"},
		keysFileFlag(),
		&cli.StringFlag{Name: "audit-log", Value: "stderr", Usage: "audit lines (audit=true, one per resource access and refusal) go to `DEST`: stderr (the log, at info level), off, or a file (appended, always written)"},
	}, fleetFlags()...) // fleet.go
}

// transport is how serve serves: stdio, or HTTP with its settings.
type transport struct {
	addr  string // "" for stdio
	cfg   server.HTTPConfig
	audit *slog.Logger
	close func() error
}

// transportFromFlags checks the transport flags; it reads the token file,
// the token environment variable, the TLS files, and opens the audit log.
func transportFromFlags(c *cli.Context, log *slog.Logger) (*transport, error) {
	t := &transport{close: func() error { return nil }}
	audit, closeAudit, err := auditLogger(c, log)
	if err != nil {
		return t, err
	}
	t.audit, t.close = audit, closeAudit
	if !c.IsSet("http") {
		for _, f := range httpFlags() {
			if n := f.Names()[0]; n != "audit-log" && n != "cursor-key-env" && n != "keys-file" && c.IsSet(n) {
				return t, usageError("--%s needs --http ADDR: it configures the HTTP transport", n)
			}
		}
		return t, nil
	}
	if t.addr, err = listenAddr(c.String("http")); err != nil {
		return t, err
	}
	if host, _, _ := net.SplitHostPort(t.addr); !isLoopbackHost(host) && !c.IsSet("allowed-host") {
		return t, usageError("--http %s is not a loopback address: give --allowed-host with the host names clients use "+
			"to reach this server (or --allowed-host '*' to accept any Host)", t.addr)
	}
	t.cfg, err = httpConfig(c)
	return t, err
}

// isLoopbackHost reports whether a listen host is localhost or a loopback IP.
func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// listenAddr turns --http into a listen address: a bare port (or :port)
// binds loopback.
func listenAddr(s string) (string, error) {
	if n, err := strconv.Atoi(s); err == nil && n >= 0 && n < 1<<16 {
		return net.JoinHostPort("127.0.0.1", s), nil
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return "", usageError("--http %q: give PORT, HOST:PORT or [IPv6]:PORT", s)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

func httpConfig(c *cli.Context) (server.HTTPConfig, error) {
	maxBody, err := config.ParseSize(c.String("max-body"))
	if err != nil {
		return server.HTTPConfig{}, usageError("--max-body: %v", err)
	}
	cfg := server.NewHTTPConfig().
		WithAllowedHosts(c.StringSlice("allowed-host")...).
		WithAllowedOrigins(c.StringSlice("allowed-origin")...).
		WithMaxBodyBytes(int64(min(maxBody, 1<<40))).
		WithSessionIdleTimeout(c.Duration("session-timeout")).
		WithMaxSessions(c.Int("max-sessions")).
		WithKeepAlive(c.Duration("keepalive")).
		WithWriteTimeout(c.Duration("write-timeout"))
	// Unless given, the per-client limits keep the server's default, which
	// depends on the bind (server.NewHTTPConfig).
	if c.IsSet("rate-limit") || c.IsSet("rate-burst") {
		cfg = cfg.WithRateLimit(c.Float64("rate-limit"), c.Int("rate-burst"))
	}
	if c.IsSet("max-sessions-per-client") {
		cfg = cfg.WithMaxSessionsPerClient(c.Int("max-sessions-per-client"))
	}
	proxies, err := trustedProxies(c.StringSlice("trusted-proxy"))
	if err != nil {
		return cfg, err
	}
	cfg = cfg.WithTrustedProxies(proxies...)
	ac, err := authConfig(c)
	if err != nil {
		return cfg, err
	}
	cfg = cfg.WithAuth(ac)
	tlsCfg, err := tlsConfig(c.String("tls-cert"), c.String("tls-key"))
	if err != nil {
		return cfg, err
	}
	return cfg.WithTLS(tlsCfg), nil
}

// trustedProxies parses --trusted-proxy: CIDR prefixes, or IPs.
func trustedProxies(specs []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range specs {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			a, aerr := netip.ParseAddr(s)
			if aerr != nil {
				return nil, usageError("--trusted-proxy %q: give a CIDR such as 10.0.0.0/8, or an IP", s)
			}
			p = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// authConfig builds the authentication of --auth-token-file,
// --auth-token-env and --oauth-*.
func authConfig(c *cli.Context) (auth.Config, error) {
	a := auth.NewConfig()
	if f := c.String("auth-token-file"); f != "" {
		tokens, err := readTokenFile(f)
		if err != nil {
			return a, failure(err)
		}
		for _, tk := range tokens {
			a = a.WithStaticToken(tk.subject, tk.token)
		}
	}
	if name := c.String("auth-token-env"); name != "" {
		v := strings.TrimSpace(os.Getenv(name))
		if v == "" || strings.ContainsAny(v, " \t\n") {
			return a, usageError("--auth-token-env %s: the variable is unset, empty or holds spaces: export %s=TOKEN", name, name)
		}
		a = a.WithStaticToken("env:"+name, v)
	}
	issuer, resource := c.String("oauth-issuer"), c.String("oauth-resource")
	if (issuer == "") != (resource == "") || (issuer == "" && (c.IsSet("oauth-audience") || c.IsSet("oauth-jwks-url") || c.IsSet("oauth-scope"))) {
		return a, usageError("OAuth needs both --oauth-issuer URL and --oauth-resource URL")
	}
	if issuer != "" {
		a = a.WithOAuth(auth.OAuthConfig{
			Issuer: issuer, Resource: resource, Audience: c.String("oauth-audience"),
			JWKSURL: c.String("oauth-jwks-url"), Scopes: c.StringSlice("oauth-scope"),
		})
	}
	return a, nil
}

type fileToken struct{ subject, token string }

// readTokenFile reads a token file: one token per line, optionally after
// a subject name; blank lines and # comments are skipped.
func readTokenFile(path string) ([]fileToken, error) {
	f, err := hostfile.Open(path) // a regular file, or refused without blocking
	if err != nil {
		return nil, fmt.Errorf("read token file: %w: give a readable file", err)
	}
	defer f.Close()
	var out []fileToken
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		switch fields := strings.Fields(line); len(fields) {
		case 1:
			out = append(out, fileToken{token: fields[0]})
		case 2:
			out = append(out, fileToken{subject: fields[0], token: fields[1]})
		default:
			return nil, fmt.Errorf("token file %s line %d: write TOKEN or SUBJECT TOKEN", path, n)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read token file %s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("token file %s holds no token: add one per line", path)
	}
	return out, nil
}

// maxPEMSize bounds a certificate chain or key file.
const maxPEMSize = 1 << 20

// tlsConfig loads the certificate and key, or returns nil without them.
func tlsConfig(certFile, keyFile string) (*tls.Config, error) {
	if certFile == "" && keyFile == "" {
		return nil, nil
	}
	if certFile == "" || keyFile == "" {
		return nil, usageError("TLS needs both --tls-cert FILE and --tls-key FILE")
	}
	// Read as every file the host reads for the operator (hostfile): a
	// FIFO or device is refused without blocking.
	certPEM, err := hostfile.ReadFile(certFile, maxPEMSize)
	if err != nil {
		return nil, failure(fmt.Errorf("load TLS certificate: %w: give a PEM certificate chain", err))
	}
	keyPEM, err := hostfile.ReadFile(keyFile, maxPEMSize)
	if err != nil {
		return nil, failure(fmt.Errorf("load TLS key: %w: give the PEM private key of --tls-cert", err))
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, failure(fmt.Errorf("load TLS certificate: %w: give a PEM certificate chain and its private key", err))
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// auditLogger opens --audit-log: the main log, nothing, or a file in the
// --log-format.
func auditLogger(c *cli.Context, log *slog.Logger) (*slog.Logger, func() error, error) {
	noop := func() error { return nil }
	switch dest := c.String("audit-log"); dest {
	case "stderr", "":
		return log, noop, nil
	case "off":
		return slog.New(slog.DiscardHandler), noop, nil
	default:
		f, err := os.OpenFile(dest, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return nil, nil, failure(fmt.Errorf("open audit log: %w: give a writable file, stderr or off", err))
		}
		if c.String("log-format") == "json" {
			return slog.New(slog.NewJSONHandler(f, nil)), f.Close, nil
		}
		return slog.New(slog.NewTextHandler(f, nil)), f.Close, nil
	}
}

// serve serves srv on the transport until c.Context is done. On HTTP,
// requests in flight get grace to finish at shutdown.
func (t *transport) serve(c *cli.Context, srv *server.Server, health server.Health, log *slog.Logger, providers int, grace time.Duration) error {
	if t.addr == "" {
		log.Info("serving MCP over stdio", "providers", providers)
		return srv.ServeStdio(c.Context, c.App.Reader, c.App.Writer)
	}
	ln, err := net.Listen("tcp", t.addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w: pick another --http address", t.addr, err)
	}
	scheme := "http"
	if t.cfg.TLSEnabled() {
		scheme = "https"
	}
	url := scheme + "://" + ln.Addr().String() + server.MCPPath
	// Tests and scripts find the bound address (--http 127.0.0.1:0) here.
	fmt.Fprintf(c.App.ErrWriter, "mcp-wasm: serving MCP on %s\n", url)
	log.Info("serving MCP over Streamable HTTP", "url", url, "providers", providers)
	// /readyz: ready while some provider served now is not quarantined.
	cfg := t.cfg.WithHealth(health).WithShutdownGrace(grace)
	return srv.ServeStreamable(c.Context, ln, cfg)
}
