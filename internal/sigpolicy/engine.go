package sigpolicy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"
)

// Engine is what verifies: sigstore-go's offline verification, linked
// only into the verifier program (package offline, cmd/mcp-wasm-verify),
// so that mcp-wasm itself links none of Sigstore's dependencies and a
// server without signature policies pays nothing for them (see
// RATIONALE.md, "Why is signature verification a separate program?").
type Engine interface {
	// Check loads what spec names (keys, trusted root) as verification
	// would, and reports every problem with its fix.
	Check(spec Spec) error
	// Verify checks the bundles in order against digest (sha256) under
	// spec, stopping at the first that verifies: one result per bundle
	// checked.
	Verify(spec Spec, digest []byte, bundles [][]byte) ([]Result, error)
	// Describe reads who each bundle claims signed it, unverified.
	Describe(bundles [][]byte) ([]string, error)
}

// Result is one bundle's verdict: the signer it claims, or that verified
// (Signer.Verified), and why it does not count ("" when it does).
type Result struct {
	Signer Identity `json:"signer"`
	Err    string   `json:"err,omitempty"`
}

var (
	inProcessMu sync.Mutex
	inProcess   Engine // set by package offline's init, in the verifier and in tests
)

// Register makes e the engine of this process (package offline does, in
// the verifier program and in tests that link it). Without one, the
// verifier program is run for each check (see verifierPath).
func Register(e Engine) {
	inProcessMu.Lock()
	defer inProcessMu.Unlock()
	inProcess = e
}

func engine() Engine {
	inProcessMu.Lock()
	defer inProcessMu.Unlock()
	if inProcess != nil {
		return inProcess
	}
	return execEngine{}
}

// VerifierName is the verifier program's name: mcp-wasm runs the one
// beside its own executable, or the one VerifierEnv names.
const VerifierName = "mcp-wasm-verify"

// VerifierEnv names an absolute path to the verifier, for layouts where it
// is not beside mcp-wasm (go run, tests). PATH is not searched: what
// decides whether a signature counts is found where mcp-wasm itself is,
// or where the operator says.
const VerifierEnv = "MCP_WASM_VERIFY"

// protocol is the version of the request and response the verifier and
// its caller exchange; a verifier built from another version refuses.
const protocol = 1

const (
	// verifyTimeout bounds one run of the verifier: loading a trusted
	// root and checking a few bundles takes milliseconds.
	verifyTimeout = 2 * time.Minute
	// maxRequest bounds what the verifier reads: the bundles (each at
	// most MaxBundleSize, at most maxBundles of them) and the spec.
	maxBundles = 64
	maxRequest = maxBundles*(MaxBundleSize*4/3+16) + 1<<20
	// maxResponse bounds what the caller reads back.
	maxResponse = 1 << 20
)

type request struct {
	Protocol int      `json:"protocol"`
	Op       string   `json:"op"` // "check", "verify", "describe"
	Spec     Spec     `json:"spec"`
	Digest   []byte   `json:"digest,omitempty"`
	Bundles  [][]byte `json:"bundles,omitempty"`
}

type response struct {
	Protocol  int      `json:"protocol"`
	Err       string   `json:"err,omitempty"`
	Results   []Result `json:"results,omitempty"`
	Described []string `json:"described,omitempty"`
}

// execEngine runs the verifier program once per request.
type execEngine struct{}

func (execEngine) Check(spec Spec) error {
	_, err := runVerifier(request{Op: "check", Spec: spec})
	return err
}

func (execEngine) Verify(spec Spec, digest []byte, bundles [][]byte) ([]Result, error) {
	if len(bundles) > maxBundles {
		bundles = bundles[:maxBundles]
	}
	res, err := runVerifier(request{Op: "verify", Spec: spec, Digest: digest, Bundles: bundles})
	if err != nil {
		return nil, err
	}
	if len(res.Results) == 0 || len(res.Results) > len(bundles) {
		return nil, fmt.Errorf("%s answered %d results for %d bundles", VerifierName, len(res.Results), len(bundles))
	}
	return res.Results, nil
}

func (execEngine) Describe(bundles [][]byte) ([]string, error) {
	if len(bundles) > maxBundles {
		bundles = bundles[:maxBundles]
	}
	res, err := runVerifier(request{Op: "describe", Bundles: bundles})
	if err != nil {
		return nil, err
	}
	if len(res.Described) != len(bundles) {
		return nil, fmt.Errorf("%s described %d of %d bundles", VerifierName, len(res.Described), len(bundles))
	}
	return res.Described, nil
}

// verifierPath finds the verifier: VerifierEnv, else beside the running
// executable.
func verifierPath() (string, error) {
	if p := os.Getenv(VerifierEnv); p != "" {
		if !filepath.IsAbs(p) {
			return "", fmt.Errorf("%s=%q is not an absolute path: give the absolute path of %s", VerifierEnv, p, VerifierName)
		}
		return p, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find %s beside this executable: %w: set %s to its absolute path", VerifierName, err, VerifierEnv)
	}
	p := filepath.Join(filepath.Dir(exe), VerifierName)
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("signature verification runs %s, which is not beside %s: install it there (make build builds both; go install ./cmd/mcp-wasm ./cmd/mcp-wasm-verify), or set %s to its absolute path", VerifierName, exe, VerifierEnv)
	}
	return p, nil
}

// runVerifier runs the verifier on one request, under verifyTimeout, with
// its answer bounded; an error it reports comes back as the error.
func runVerifier(req request) (*response, error) {
	path, err := verifierPath()
	if err != nil {
		return nil, err
	}
	req.Protocol = protocol
	in, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), verifyTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path)
	cmd.Env = []string{} // it needs nothing from the environment
	cmd.Stdin = bytes.NewReader(in)
	stdout, stderr := &capped{max: maxResponse}, &capped{max: 4 << 10}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s did not answer within %s", path, verifyTimeout)
		}
		return nil, fmt.Errorf("run %s: %v: %s", path, err, bytes.TrimSpace(stderr.Bytes()))
	}
	if stdout.over {
		return nil, fmt.Errorf("%s answered more than %d bytes", path, maxResponse)
	}
	var res response
	dec := json.NewDecoder(bytes.NewReader(stdout.Bytes()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&res); err != nil {
		return nil, fmt.Errorf("%s answered: %v: reinstall it from the same build as mcp-wasm", path, err)
	}
	if res.Protocol != protocol {
		return nil, fmt.Errorf("%s speaks protocol %d, mcp-wasm %d: install the %s built with this mcp-wasm", path, res.Protocol, protocol, VerifierName)
	}
	if res.Err != "" {
		return nil, errors.New(res.Err)
	}
	return &res, nil
}

// capped is a buffer that keeps at most max bytes and notes the rest. It
// embeds no bytes.Buffer: exec would copy through its ReadFrom, around
// the cap.
type capped struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); len(p) > room {
		c.over = true
		c.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return c.buf.Write(p)
}

func (c *capped) Bytes() []byte { return c.buf.Bytes() }

// Serve answers one request read from r with the engine registered in
// this process, on w: the verifier program's main. A request it cannot
// read is answered with its error.
func Serve(r io.Reader, w io.Writer) error {
	res := serve(r)
	res.Protocol = protocol
	return json.NewEncoder(w).Encode(res)
}

func serve(r io.Reader) response {
	inProcessMu.Lock()
	e := inProcess
	inProcessMu.Unlock()
	if e == nil {
		return response{Err: "no verification engine is linked into " + VerifierName}
	}
	var req request
	dec := json.NewDecoder(io.LimitReader(r, maxRequest))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return response{Err: fmt.Sprintf("read request: %v", err)}
	}
	if req.Protocol != protocol {
		return response{Err: fmt.Sprintf("request of protocol %d, %s speaks %d: install the %s built with this mcp-wasm", req.Protocol, VerifierName, protocol, VerifierName)}
	}
	if len(req.Bundles) > maxBundles {
		return response{Err: fmt.Sprintf("%d bundles, at most %d", len(req.Bundles), maxBundles)}
	}
	switch req.Op {
	case "check":
		if err := e.Check(req.Spec); err != nil {
			return response{Err: err.Error()}
		}
		return response{}
	case "verify":
		rs, err := e.Verify(req.Spec, req.Digest, req.Bundles)
		if err != nil {
			return response{Err: err.Error()}
		}
		return response{Results: rs}
	case "describe":
		ds, err := e.Describe(req.Bundles)
		if err != nil {
			return response{Err: err.Error()}
		}
		return response{Described: ds}
	}
	return response{Err: fmt.Sprintf("unknown op %q", req.Op)}
}
