package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The config file's JSON is decoded strictly, in two passes. The first walks
// the tokens against the Go type of the config (fileConfig), records where
// every value starts, and collects every problem: an unknown key (with the
// nearest known one), a duplicate key, a value of the wrong JSON type, null,
// or a duration or size that does not parse. Only a file that passes is then
// decoded by encoding/json, which can no longer fail or fold the case of a
// key. Every problem becomes "file:line:col: ..." through source.

const (
	// maxConfigSize bounds the config file: it is read whole.
	maxConfigSize = 1 << 20
	// maxConfigDepth bounds nesting; the schema needs 5.
	maxConfigDepth = 16
	// maxProblems bounds the problems reported at once.
	maxProblems = 20
)

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// source is the text of a config file: it turns byte offsets and key
// paths ("providers[0].limits.memory") into file:line:col.
type source struct {
	name string // the path as the operator wrote it
	data []byte
	pos  map[string]int64 // key path -> offset where its value starts
}

// lineCol returns the 1-based line and column (in bytes) of offset off.
func (s *source) lineCol(off int64) (line, col int) {
	off = min(max(off, 0), int64(len(s.data)))
	before := s.data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

// at returns "file:line:col" of the value at path, or of its nearest
// recorded parent, or "file" alone.
func (s *source) at(path string) string {
	for p := path; ; p = parentPath(p) {
		if off, ok := s.pos[p]; ok {
			line, col := s.lineCol(off)
			return fmt.Sprintf("%s:%d:%d", s.name, line, col)
		}
		if p == "" {
			return s.name
		}
	}
}

// line returns the 1-based line of the value at path (0 if unknown).
func (s *source) line(path string) int {
	if off, ok := s.pos[path]; ok {
		l, _ := s.lineCol(off)
		return l
	}
	return 0
}

func parentPath(p string) string {
	i := strings.LastIndexAny(p, ".[")
	if i < 0 {
		return ""
	}
	return p[:i]
}

func joinPath(parent, key string) string {
	switch {
	case parent == "":
		return key
	case key == "":
		return parent
	}
	return parent + "." + key
}

// problem is one thing wrong with the file, at a byte offset: what it is
// about (a key path, or "" for the file) and what is wrong, with the fix.
type problem struct {
	off     int64
	path    string
	subject string
	msg     string
}

// decodeStrict checks src.data against the type of v, fills src.pos, and
// decodes into v only if the file has no problem.
func decodeStrict(src *source, v any) error {
	if !utf8.Valid(src.data) {
		return &Error{src.name, []string{src.name + ": the file is not UTF-8 text: save it as UTF-8"}}
	}
	dec := json.NewDecoder(bytes.NewReader(src.data))
	dec.UseNumber()
	w := &walker{src: src, dec: dec}
	src.pos = map[string]int64{}
	err := w.value(reflect.TypeOf(v).Elem(), "", 0)
	if err == nil {
		if _, terr := dec.Token(); terr != io.EOF {
			w.add(dec.InputOffset(), "", "", "unexpected data after the end of the top-level object: remove it")
		}
	}
	if err != nil {
		w.probs = append(w.probs, w.syntax(err))
	}
	if len(w.probs) > 0 {
		return w.report()
	}
	if err := json.Unmarshal(src.data, v); err != nil {
		return &Error{src.name, []string{fmt.Sprintf("%s: %v", src.name, err)}}
	}
	return nil
}

// walker is the first pass of decodeStrict.
type walker struct {
	src   *source
	dec   *json.Decoder
	probs []problem
}

func (w *walker) add(off int64, path, subject, msg string) {
	w.probs = append(w.probs, problem{off: off, path: path, subject: subject, msg: msg})
}

// next returns the offset where the next value or key starts.
func (w *walker) next() int64 {
	off := w.dec.InputOffset()
	for off < int64(len(w.src.data)) && strings.IndexByte(" \t\r\n:,", w.src.data[off]) >= 0 {
		off++
	}
	return off
}

// value walks one value that should hold Go type t. It returns an error
// only when the JSON itself is broken and walking cannot go on.
func (w *walker) value(t reflect.Type, path string, depth int) error {
	start := w.next()
	w.src.pos[path] = start
	if depth > maxConfigDepth {
		return fmt.Errorf("nesting deeper than %d", maxConfigDepth)
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		return w.leaf(t, path, start)
	}
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		w.add(start, path, path, "is null: give it a value or remove the key")
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		if tok != json.Delim('{') {
			return w.mismatch(tok, start, path, "an object {...}")
		}
		fields := jsonFields(t)
		return w.object(path, depth, func(k string) (reflect.Type, bool) { f, ok := fields[k]; return f, ok }, fields)
	case reflect.Map:
		if tok != json.Delim('{') {
			return w.mismatch(tok, start, path, "an object {...}")
		}
		return w.object(path, depth, func(string) (reflect.Type, bool) { return t.Elem(), true }, nil)
	case reflect.Slice:
		if tok != json.Delim('[') {
			return w.mismatch(tok, start, path, "an array [...]")
		}
		return w.array(t.Elem(), path, depth)
	}
	return w.scalar(t, tok, start, path)
}

// leaf checks a value whose type decodes itself (durations, sizes).
func (w *walker) leaf(t reflect.Type, path string, start int64) error {
	var raw json.RawMessage
	if err := w.dec.Decode(&raw); err != nil {
		return err
	}
	if string(raw) == "null" {
		w.add(start, path, path, "is null: give it a value or remove the key")
		return nil
	}
	if err := reflect.New(t).Interface().(json.Unmarshaler).UnmarshalJSON(raw); err != nil {
		w.add(start, path, path, err.Error())
	}
	return nil
}

func (w *walker) scalar(t reflect.Type, tok json.Token, start int64, path string) error {
	switch t.Kind() {
	case reflect.String:
		if _, ok := tok.(string); !ok {
			return w.mismatch(tok, start, path, "a string \"...\"")
		}
	case reflect.Bool:
		if _, ok := tok.(bool); !ok {
			return w.mismatch(tok, start, path, "true or false")
		}
	case reflect.Int:
		n, ok := tok.(json.Number)
		if !ok {
			return w.mismatch(tok, start, path, "a whole number")
		}
		if _, err := strconv.Atoi(string(n)); err != nil {
			w.add(start, path, path, fmt.Sprintf("is %s: use a whole number", n))
		}
	default:
		panic("BUG: config type " + t.String() + " has no JSON rule")
	}
	return nil
}

// object walks the members of an object whose '{' was just read.
func (w *walker) object(path string, depth int, field func(string) (reflect.Type, bool), known map[string]reflect.Type) error {
	seen := map[string]bool{}
	for w.dec.More() {
		keyOff := w.next()
		tok, err := w.dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string) // object keys are always strings
		sub := joinPath(path, key)
		ft, ok := field(key)
		switch {
		case seen[key]:
			w.add(keyOff, sub, path, fmt.Sprintf("duplicate key %q: keep only one", key))
		case !ok:
			w.add(keyOff, path, path, unknownKey(key, known))
		default:
			seen[key] = true
			if err := w.value(ft, sub, depth+1); err != nil {
				return err
			}
			continue
		}
		if err := w.skip(); err != nil {
			return err
		}
	}
	_, err := w.dec.Token() // '}'
	return err
}

func (w *walker) array(elem reflect.Type, path string, depth int) error {
	for i := 0; w.dec.More(); i++ {
		if err := w.value(elem, fmt.Sprintf("%s[%d]", path, i), depth+1); err != nil {
			return err
		}
	}
	_, err := w.dec.Token() // ']'
	return err
}

// skip consumes the next value whole.
func (w *walker) skip() error {
	var raw json.RawMessage
	return w.dec.Decode(&raw)
}

// mismatch records a value of the wrong JSON type and skips the rest of it.
func (w *walker) mismatch(tok json.Token, start int64, path, want string) error {
	subject := path
	if subject == "" {
		subject = "the file"
	}
	msg := fmt.Sprintf("must be %s, not %s", want, jsonKind(tok))
	if _, quoted := tok.(string); quoted && (want == "a whole number" || want == "true or false") {
		msg += ": remove the quotes"
	}
	w.add(start, path, subject, msg)
	if d, ok := tok.(json.Delim); ok && (d == '{' || d == '[') {
		for depth := 1; depth > 0; {
			t, err := w.dec.Token()
			if err != nil {
				return err
			}
			switch t {
			case json.Delim('{'), json.Delim('['):
				depth++
			case json.Delim('}'), json.Delim(']'):
				depth--
			}
		}
	}
	return nil
}

// syntax turns a decoder error into a problem at its offset.
func (w *walker) syntax(err error) problem {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return problem{off: max(se.Offset-1, 0), msg: "invalid JSON: " + se.Error() + ": fix the syntax (a missing comma or quote, or a trailing comma?)"}
	case errors.Is(err, io.EOF) && len(bytes.TrimSpace(w.src.data)) == 0:
		return problem{msg: `the file is empty: write a JSON object such as {"providers": [{"module": "x.wasm"}]}`}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return problem{off: int64(len(w.src.data)), msg: "the JSON ends too early: close every { and ["}
	}
	return problem{off: w.dec.InputOffset(), msg: "invalid JSON: " + err.Error()}
}

// report formats the problems, naming the provider each one is in.
func (w *walker) report() error {
	labels := providerLabels(w.src.data)
	sort.SliceStable(w.probs, func(i, j int) bool { return w.probs[i].off < w.probs[j].off })
	e := &Error{File: w.src.name}
	for i, p := range w.probs {
		if i == maxProblems {
			e.Problems = append(e.Problems, fmt.Sprintf("%s: ... and %d more problems", w.src.name, len(w.probs)-i))
			break
		}
		line, col := w.src.lineCol(p.off)
		msg := p.msg
		if p.subject != "" {
			msg = p.subject + labelFor(labels, p.path) + ": " + msg
		}
		e.Problems = append(e.Problems, fmt.Sprintf("%s:%d:%d: %s", w.src.name, line, col, msg))
	}
	return e
}

// providerLabels reads provider names and modules leniently, to say which
// provider a problem is in.
func providerLabels(data []byte) []string {
	var loose struct {
		Providers []struct {
			Name   any `json:"name"`
			Module any `json:"module"`
		} `json:"providers"`
	}
	_ = json.Unmarshal(data, &loose) // best effort: labels are a courtesy
	out := make([]string, len(loose.Providers))
	for i, p := range loose.Providers {
		if s, ok := p.Name.(string); ok && s != "" {
			out[i] = s
		} else if s, ok := p.Module.(string); ok && s != "" {
			out[i] = s
		}
	}
	return out
}

// labelFor returns ` (provider "notes")` for a path inside providers[i].
func labelFor(labels []string, path string) string {
	var i int
	if _, err := fmt.Sscanf(path, "providers[%d]", &i); err != nil || i < 0 || i >= len(labels) || labels[i] == "" {
		return ""
	}
	return fmt.Sprintf(" (provider %q)", labels[i])
}

func jsonKind(tok json.Token) string {
	switch tok.(type) {
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "true/false"
	case json.Delim:
		if tok == json.Delim('{') {
			return "an object"
		}
		return "an array"
	}
	return "null"
}

// jsonFields maps the json names of t's fields to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "" && name != "-" && f.IsExported() {
			out[name] = f.Type
		}
	}
	return out
}

// renamedKeys are keys that earlier versions read, and their new names.
var renamedKeys = map[string]string{"mount": "schemePrefix"}

// unknownKey says a key is unknown and suggests the nearest known one.
func unknownKey(key string, known map[string]reflect.Type) string {
	msg := fmt.Sprintf("unknown key %q", key)
	if now, ok := renamedKeys[key]; ok && known[now] != nil {
		return msg + fmt.Sprintf(": it is now called %q", now)
	}
	names := make([]string, 0, len(known))
	for k := range known {
		names = append(names, k)
	}
	sort.Strings(names)
	if s := closest(key, names); s != "" {
		return msg + fmt.Sprintf(": did you mean %q?", s)
	}
	return msg + ": the keys here are " + strings.Join(names, ", ")
}

// closest returns the candidate nearest to key: the same once case, '_'
// and '-' are ignored, else within an edit distance of 2 (1 for short
// keys); "" if none is near.
func closest(key string, candidates []string) string {
	norm := func(s string) string { return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s)) }
	best, bestD := "", 3
	if len(key) <= 4 {
		bestD = 2
	}
	for _, c := range candidates {
		if norm(c) == norm(key) {
			return c
		}
		if d := editDistance(strings.ToLower(key), strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
