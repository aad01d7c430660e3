package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

const (
	modernVersion = "2026-07-28"
	legacyVersion = "2025-11-25"
	// maxBody bounds one response read by the generator.
	maxBody = 16 << 20
)

// client is one simulated MCP client: sequential reads on one connection.
type client struct {
	hc      *http.Client
	cfg     Config
	next    int    // index of the next URI
	id      int    // JSON-RPC id of the next request
	session string // legacy session id, "" until initialized

	latencies []time.Duration
	errors    int
	samples   []string
}

// run reads until ctx is done. A failure that happens because the run
// ended is not an error. With cfg.MinReads, a client that has fewer
// correct reads than that when ctx ends goes on reading, under base (the
// caller's context), until it has them.
func (c *client) run(base, ctx context.Context) {
	defer c.close()
	for {
		if ctx.Err() != nil {
			if len(c.latencies) >= c.cfg.MinReads || base.Err() != nil {
				break
			}
			ctx = base
		}
		if c.cfg.Era == Legacy && c.session == "" {
			if err := c.initialize(ctx); err != nil {
				c.fail(ctx, fmt.Errorf("initialize: %w", err))
				pause(ctx, 100*time.Millisecond)
				continue
			}
		}
		uri := c.cfg.URIs[c.next%len(c.cfg.URIs)]
		c.next++
		start := time.Now()
		if err := c.read(ctx, uri); err != nil {
			c.fail(ctx, fmt.Errorf("read %s: %w", uri, err))
			continue
		}
		c.latencies = append(c.latencies, time.Since(start))
	}
}

func pause(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

func (c *client) fail(ctx context.Context, err error) {
	if ctx.Err() != nil {
		return // the run is over: the request was cut, not failed
	}
	c.errors++
	if len(c.samples) < maxSamples {
		c.samples = append(c.samples, err.Error())
	}
}

// read sends one resources/read and checks the answer.
func (c *client) read(ctx context.Context, uri string) error {
	c.id++
	params := map[string]any{"uri": uri}
	hdr := map[string]string{"Mcp-Method": "resources/read", "Mcp-Name": uri}
	if c.cfg.Era == Modern {
		params["_meta"] = map[string]any{
			"io.modelcontextprotocol/protocolVersion":    modernVersion,
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
			"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "mcp-wasm-load", "version": "1"},
		}
		hdr["MCP-Protocol-Version"] = modernVersion
	} else {
		hdr["MCP-Protocol-Version"] = legacyVersion
		hdr["Mcp-Session-Id"] = c.session
	}
	status, _, body, err := c.post(ctx, hdr, c.request("resources/read", params))
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return fmt.Errorf("HTTP %d: %.200s", status, body)
	}
	return checkRead(body, c.id)
}

// initialize opens a legacy session.
func (c *client) initialize(ctx context.Context) error {
	c.id++
	status, h, body, err := c.post(ctx, nil, c.request("initialize", map[string]any{
		"protocolVersion": legacyVersion, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "mcp-wasm-load", "version": "1"},
	}))
	if err != nil {
		return err
	}
	if status != http.StatusOK || h.Get("Mcp-Session-Id") == "" {
		return fmt.Errorf("HTTP %d without a session: %.200s", status, body)
	}
	c.session = h.Get("Mcp-Session-Id")
	note, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	status, _, body, err = c.post(ctx, map[string]string{"Mcp-Session-Id": c.session, "MCP-Protocol-Version": legacyVersion}, note)
	if err != nil || status != http.StatusAccepted {
		c.session = ""
		return fmt.Errorf("initialized: HTTP %d %v: %.200s", status, err, body)
	}
	return nil
}

// close ends a legacy session, with its own short deadline: the run's
// context is over by then.
func (c *client) close() {
	if c.session == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, c.cfg.URL, nil)
	if err != nil {
		return
	}
	req.Header.Set("Mcp-Session-Id", c.session)
	req.Header.Set("MCP-Protocol-Version", legacyVersion)
	if resp, err := c.hc.Do(req); err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

func (c *client) request(method string, params any) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	return b
}

// post sends one message and reads the whole answer.
func (c *client) post(ctx context.Context, hdr map[string]string, body []byte) (int, http.Header, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.URL, bytes.NewReader(body))
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	return resp.StatusCode, resp.Header, b, err
}

// rpcAnswer is the part of a JSON-RPC response the generator checks.
type rpcAnswer struct {
	ID     json.RawMessage `json:"id"`
	Result *struct {
		Contents []json.RawMessage `json:"contents"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// checkRead finds the response with id in body (JSON, or an SSE stream of
// data: lines) and checks it is a read result with contents.
func checkRead(body []byte, id int) error {
	want := strconv.Itoa(id)
	for _, msg := range jsonMessages(body) {
		var a rpcAnswer
		if err := json.Unmarshal(msg, &a); err != nil {
			return fmt.Errorf("bad JSON: %w: %.200s", err, msg)
		}
		if string(a.ID) != want {
			continue
		}
		switch {
		case a.Error != nil:
			return fmt.Errorf("JSON-RPC error %d: %s", a.Error.Code, a.Error.Message)
		case a.Result == nil || len(a.Result.Contents) == 0:
			return errors.New("result without contents")
		}
		return nil
	}
	return fmt.Errorf("no response with id %s: %.200s", want, body)
}

// jsonMessages splits a body into JSON messages: the body itself, or the
// data of each server-sent event.
func jsonMessages(body []byte) [][]byte {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		return [][]byte{trimmed}
	}
	var out [][]byte
	for line := range strings.SplitSeq(string(body), "\n") {
		if d, ok := strings.CutPrefix(line, "data:"); ok && strings.TrimSpace(d) != "" {
			out = append(out, []byte(d))
		}
	}
	return out
}
