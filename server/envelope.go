package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The JSON-RPC envelope of every message a client sends, on stdio and HTTP
// alike, is checked here before go-sdk sees it. go-sdk decodes envelopes
// leniently and fails hard: on stdio, one message it cannot decode (a
// "method" that is a number, an "id" that is an object, an "error" that is
// a number) ends the session, and ids it can decode it may change (1.5 is
// answered as 1, 1e2 as 100, 2^53+1 as 2^53, a number past int64 as its
// minimum, and "id":null makes a call a notification that is never
// answered). decodeFrame builds the go-sdk message itself from the checked
// members, so go-sdk only ever sees messages it represents exactly.
//
// The id policy (RATIONALE.md, "Why are some request ids refused?"): a
// string id is echoed as the same string; a numeric id must be an integer
// written plainly (no fraction, exponent or minus zero) within
// ±(2^53-1), which is echoed byte for byte; any other id is refused with
// -32600 and id null, never answered under another id.

// maxExactID is the largest numeric id echoed exactly: go-sdk carries
// numeric ids through a float64, exact up to 2^53 (JavaScript's
// Number.MAX_SAFE_INTEGER).
const maxExactID = 1<<53 - 1

// msgKind is what a message is, as far as its members tell.
type msgKind int

const (
	kindInvalid      msgKind = iota // neither a request nor a response
	kindCall                        // "method" and "id"
	kindNotification                // "method" and no "id"
	kindResponse                    // "result" or "error", no "method"
)

// inbound is one checked message of a frame.
type inbound struct {
	kind msgKind
	msg  jsonrpc.Message // what go-sdk serves; nil when refused
	// refusal is why the message is refused (nil when it is not).
	refusal *jsonrpc.Error
	// id is a call's id as the client wrote it, when it is one that is
	// echoed; nil otherwise (refusals then carry id null).
	id        json.RawMessage
	method    string
	stateless bool // a call whose _meta names a 2026-07-28 or later revision
}

// answered reports whether a refusal of m is answered: calls and messages
// that are neither requests nor responses are; notifications and
// responses never are (a reply to them could start two peers answering
// each other's errors).
func (m inbound) answered() bool { return m.kind == kindCall || m.kind == kindInvalid }

// refuse returns m refused with -32600 and msg.
func (m inbound) refuse(format string, args ...any) inbound {
	m.msg = nil
	m.refusal = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: " + fmt.Sprintf(format, args...)}
	return m
}

// Whole-frame refusals, answered with one error and id null.
var (
	errNotJSON    = &jsonrpc.Error{Code: jsonrpc.CodeParseError, Message: "parse error: the message is not JSON (or not UTF-8)"}
	errEmptyBatch = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: an empty batch"}
)

// decodeFrame checks one frame (a stdio line, an HTTP body): a message, or
// a batch (a JSON array) of them. whole is set when the frame as a whole is
// refused; otherwise msgs holds each message, checked.
func decodeFrame(b []byte) (msgs []inbound, batch bool, whole *jsonrpc.Error) {
	if !utf8.Valid(b) || !json.Valid(b) {
		return nil, false, errNotJSON
	}
	b = bytes.Trim(b, " \t\r\n") // JSON's whitespace
	if b[0] != '[' {
		return []inbound{decodeMessage(b)}, false, nil
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(b, &raws); err != nil {
		return nil, true, errNotJSON
	}
	if len(raws) == 0 {
		return nil, true, errEmptyBatch
	}
	msgs = make([]inbound, len(raws))
	for i, raw := range raws {
		msgs[i] = decodeMessage(raw)
	}
	return msgs, true, nil
}

// envelope holds the members of a message object that JSON-RPC defines.
type envelope struct {
	version, id, method, params, result, error json.RawMessage
}

// decodeMessage checks one message, which is valid JSON.
func decodeMessage(raw json.RawMessage) inbound {
	var m inbound
	var env envelope
	if err := readMembers(raw, func(name string, v json.RawMessage) error {
		slot := env.slot(name)
		if slot == nil {
			return nil // other members are ignored
		}
		if *slot != nil {
			return fmt.Errorf("member %q is given twice", name)
		}
		*slot = v
		return nil
	}); err != nil {
		return m.refuse("%v", err)
	}
	switch {
	case env.method != nil && env.id != nil:
		m.kind = kindCall
	case env.method != nil:
		m.kind = kindNotification
	case env.result != nil || env.error != nil:
		m.kind = kindResponse
	}
	id, idErr := checkID(env.id)
	if idErr == nil && m.answered() {
		m.id = env.id
	}
	switch v, ok := jsonString(env.version); {
	case m.kind == kindInvalid:
		return m.refuse(`a message needs "method" (a request) or "result" or "error" (a response)`)
	case !ok || v != "2.0":
		return m.refuse(`"jsonrpc" must be "2.0"`)
	case idErr != nil:
		return m.refuse("%v", idErr)
	}
	if m.kind == kindResponse {
		return m.response(id, env)
	}
	return m.request(id, env)
}

// slot returns where the member name goes, or nil for another member.
// Names are matched exactly: "Method" is not "method".
func (e *envelope) slot(name string) *json.RawMessage {
	switch name {
	case "jsonrpc":
		return &e.version
	case "id":
		return &e.id
	case "method":
		return &e.method
	case "params":
		return &e.params
	case "result":
		return &e.result
	case "error":
		return &e.error
	}
	return nil
}

func (m inbound) request(id jsonrpc.ID, env envelope) inbound {
	method, ok := jsonString(env.method)
	if !ok {
		return m.refuse(`"method" must be a string`)
	}
	m.method = method
	params := env.params
	switch {
	case params == nil || string(params) == "null":
		params = nil
	case params[0] != '{' && params[0] != '[':
		return m.refuse(`"params" must be an object or an array`)
	}
	stateless, err := checkParams(params)
	if err != nil {
		m.msg = nil
		m.refusal = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid params: " + err.Error()}
		return m
	}
	m.stateless = m.kind == kindCall && stateless
	m.msg = &jsonrpc.Request{ID: id, Method: method, Params: params}
	return m
}

func (m inbound) response(id jsonrpc.ID, env envelope) inbound {
	if (env.result == nil) == (env.error == nil) {
		return m.refuse(`a response has exactly one of "result" and "error"`)
	}
	resp := &jsonrpc.Response{ID: id, Result: env.result}
	if env.error != nil {
		werr, err := checkError(env.error)
		if err != nil {
			return m.refuse("%v", err)
		}
		resp.Result, resp.Error = nil, werr
	}
	m.msg = resp
	return m
}

// checkID checks a request id (absent: the zero ID, a notification's).
func checkID(raw json.RawMessage) (jsonrpc.ID, error) {
	if raw == nil {
		return jsonrpc.ID{}, nil
	}
	switch raw[0] {
	case '"':
		s, ok := jsonString(raw)
		if !ok || !exactString(raw) {
			return jsonrpc.ID{}, errors.New(`"id" is a string with an unpaired surrogate: it cannot be echoed exactly`)
		}
		return jsonrpc.MakeID(s)
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil || string(raw) == "-0" || n > maxExactID || n < -maxExactID {
			return jsonrpc.ID{}, fmt.Errorf(`"id" must be a string or an integer from %d to %d written without fraction, exponent or minus zero`, -maxExactID, maxExactID)
		}
		return jsonrpc.MakeID(float64(n))
	}
	return jsonrpc.ID{}, errors.New(`"id" must be a string or an integer (not null, a boolean, an object or an array)`)
}

// checkError checks a response's "error": an object with an integer
// "code", a string "message" and any "data".
func checkError(raw json.RawMessage) (*jsonrpc.Error, error) {
	bad := errors.New(`"error" must be an object with an integer "code" and a string "message"`)
	var code, message, data json.RawMessage
	err := readMembers(raw, func(name string, v json.RawMessage) error {
		switch name {
		case "code":
			code = v
		case "message":
			message = v
		case "data":
			data = v
		}
		return nil
	})
	if err != nil || code == nil {
		return nil, bad
	}
	c, cerr := strconv.ParseInt(string(code), 10, 64)
	msg, ok := jsonString(message)
	if cerr != nil || !ok {
		return nil, bad
	}
	return &jsonrpc.Error{Code: c, Message: msg, Data: data}, nil
}

// checkParams reads params (nil, an object or an array) as go-sdk will,
// and reports whether they carry the _meta protocol version of a
// 2026-07-28 or later request (exact names, as go-sdk matches them). It
// refuses a member given twice in params or in its _meta: go-sdk decodes
// such an object by merging the two (a later "_meta":{} keeps the earlier
// protocolVersion), where a reader that takes the last one would see
// another request, so that a 2026-07-28 request could pass for a legacy
// one (and be served inside a batch). One message has one reading.
func checkParams(params json.RawMessage) (stateless bool, err error) {
	if len(params) == 0 || params[0] != '{' {
		return false, nil
	}
	var meta json.RawMessage
	if err := uniqueMembers("params", params, func(name string, v json.RawMessage) {
		if name == "_meta" {
			meta = v
		}
	}); err != nil {
		return false, err
	}
	if len(meta) == 0 || meta[0] != '{' {
		return false, nil
	}
	var version json.RawMessage
	if err := uniqueMembers("params._meta", meta, func(name string, v json.RawMessage) {
		if name == mcp.MetaKeyProtocolVersion {
			version = v
		}
	}); err != nil {
		return false, err
	}
	v, ok := jsonString(version)
	return ok && revision(v).stateless(), nil
}

// uniqueMembers calls f with each member of the object raw (named where
// for errors), and refuses a name given twice. Names are compared decoded
// ("_met\u0061" is "_meta"). The few members of usual params are compared
// in a slice; past smallObject, a map keeps a huge object linear.
func uniqueMembers(where string, raw json.RawMessage, f func(name string, v json.RawMessage)) error {
	const smallObject = 16
	var small [smallObject]string
	names := small[:0]
	var many map[string]bool
	return readMembers(raw, func(name string, v json.RawMessage) error {
		dup := many[name]
		if many == nil {
			dup = slices.Contains(names, name)
		}
		if dup {
			return fmt.Errorf("member %q of %s is given twice: send each member once", clip(name), where)
		}
		switch {
		case many != nil:
			many[name] = true
		case len(names) < smallObject:
			names = append(names, name)
		default:
			many = make(map[string]bool, 2*smallObject)
			for _, n := range names {
				many[n] = true
			}
			many[name] = true
		}
		f(name, v)
		return nil
	})
}

// exactString reports whether the JSON string raw (valid, UTF-8) decodes
// without loss: every \u escape of a surrogate is half of a pair. Go
// decodes an unpaired one as U+FFFD, which would echo another string.
func exactString(raw json.RawMessage) bool {
	pendingHigh := false
	for i := 1; i < len(raw)-1; i++ {
		if raw[i] != '\\' {
			if pendingHigh {
				return false
			}
			continue
		}
		i++
		if raw[i] != 'u' {
			if pendingHigh {
				return false
			}
			continue
		}
		r, _ := strconv.ParseUint(string(raw[i+1:i+5]), 16, 16)
		i += 4
		switch {
		case r >= 0xd800 && r < 0xdc00:
			if pendingHigh {
				return false
			}
			pendingHigh = true
		case r >= 0xdc00 && r < 0xe000:
			if !pendingHigh {
				return false
			}
			pendingHigh = false
		default:
			if pendingHigh {
				return false
			}
		}
	}
	return !pendingHigh
}

// refusal is the JSON-RPC error response to a refused message: id as the
// client wrote it, or null.
func refusal(id json.RawMessage, e *jsonrpc.Error) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc.Error  `json:"error"`
	}{"2.0", id, e})
	if err != nil {
		panic("BUG: a refusal does not marshal: " + err.Error())
	}
	return b
}

// batchRefusals answers a batch refused as a whole because some message
// in it is malformed (reason names it): every call with a good id gets
// -32600 under its id, every malformed answered message its own refusal.
// Nothing in it is served. It returns nil when nothing is answered.
func batchRefusals(msgs []inbound, reason string) []json.RawMessage {
	var out []json.RawMessage
	for _, m := range msgs {
		switch {
		case m.refusal != nil && m.answered():
			out = append(out, refusal(m.id, m.refusal))
		case m.refusal == nil && m.kind == kindCall:
			out = append(out, refusal(m.id, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
				Message: "invalid request: the batch is refused: " + reason}))
		}
	}
	return out
}

// checkBatch returns why a batch of good messages is refused as a whole,
// or "": a message in it refused, an id given twice, an initialize in it
// (never batched), or a 2026-07-28 request (that revision has no batches).
// The caller checks the revision of the session.
func checkBatch(msgs []inbound) string {
	ids := map[jsonrpc.ID]bool{}
	for i, m := range msgs {
		switch {
		case m.refusal != nil:
			return fmt.Sprintf("message %d is malformed", i+1)
		case m.kind != kindCall:
		case ids[m.msg.(*jsonrpc.Request).ID]:
			return fmt.Sprintf("message %d repeats an id of the batch", i+1)
		case m.method == "initialize":
			return "initialize must not be part of a batch"
		case m.stateless:
			return "protocol 2026-07-28 has no batches: send one message at a time"
		}
		if m.kind == kindCall {
			ids[m.msg.(*jsonrpc.Request).ID] = true
		}
	}
	return ""
}

// batchesAllowed reports whether revision rev accepts JSON-RPC batches:
// 2025-03-26 and older do, 2025-06-18 removed them.
func batchesAllowed(rev revision) bool { return rev != "" && rev < rev20250618 }

// errNoBatch refuses a batch on a revision without batches.
var errNoBatch = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
	Message: "invalid request: batches are accepted only on protocol 2025-03-26 and older, after initialize: send one message at a time"}
