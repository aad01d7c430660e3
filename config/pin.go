package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Pin returns the text of the config file with every provider pinned, for
// mcp-wasm lock: pin is called with each provider and returns the digest
// of its module's bytes now ("sha256:...") and, for a registry reference,
// the reference pinned to the manifest it names (else ""). The provider's
// "sha256" becomes that digest and its "module" that reference; every
// other byte of the file is kept, so the file stays the operator's (a
// missing "sha256" is added after "module" in the same style). Write the
// result with WriteFile.
func (c *Config) Pin(pin func(Provider) (digest string, pinned ModuleRef, err error)) ([]byte, error) {
	if c.src == nil {
		return nil, errors.New("pin: the providers come from flags, not a config file: give --config FILE")
	}
	return rewrite(c.src.data, func(i int, module string) (string, string, error) {
		if i >= len(c.Providers) {
			return "", "", fmt.Errorf("providers[%d] was not read: read the file again", i)
		}
		digest, pinned, err := pin(c.Providers[i])
		if err != nil {
			return "", "", err
		}
		if pinned != "" {
			module = string(pinned)
		}
		return module, strings.TrimPrefix(digest, "sha256:"), nil
	})
}

// WriteFile replaces the config file at path with data, keeping its mode:
// a temporary file beside it, synced, then renamed, so that a reload
// never reads half a file.
func WriteFile(path string, data []byte) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(fi.Mode().Perm()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// rewrite pins every provider of a config file's JSON text: pin is
// called with each providers[i].module and returns the module to write
// and the module's sha256. Only those two values change, and a missing
// "sha256" is added after "module" in the same style.
func rewrite(data []byte, pin func(i int, module string) (string, string, error)) ([]byte, error) {
	entries, err := scanProviders(data)
	if err != nil {
		return nil, err
	}
	type edit struct {
		start, end int
		text       string
	}
	var edits []edit
	for i, e := range entries {
		if e.module.start < 0 {
			return nil, fmt.Errorf("providers[%d] has no \"module\"", i)
		}
		mod, sha, err := pin(i, e.moduleValue)
		if err != nil {
			return nil, fmt.Errorf("providers[%d] (%s): %w", i, e.moduleValue, err)
		}
		edits = append(edits, edit{e.module.start, e.module.end, quote(mod)})
		if e.sha.start >= 0 {
			edits = append(edits, edit{e.sha.start, e.sha.end, quote(sha)})
			continue
		}
		sep := ", "
		if ls := bytes.LastIndexByte(data[:e.moduleKey], '\n'); ls >= 0 && strings.TrimSpace(string(data[ls+1:e.moduleKey])) == "" {
			sep = ",\n" + string(data[ls+1:e.moduleKey])
		}
		edits = append(edits, edit{e.module.end, e.module.end, sep + `"sha256": ` + quote(sha)})
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].start > edits[j].start })
	out := append([]byte(nil), data...)
	for _, e := range edits {
		out = append(out[:e.start], append([]byte(e.text), out[e.end:]...)...)
	}
	return out, nil
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

type span struct{ start, end int }

type providerEntry struct {
	moduleKey   int
	module, sha span
	moduleValue string
}

// scanProviders finds, in each providers[i] object, where the values of
// "module" and "sha256" are.
func scanProviders(data []byte) ([]providerEntry, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := expect(dec, '{'); err != nil {
		return nil, err
	}
	var out []providerEntry
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, err
		}
		if key != "providers" {
			if err := skip(dec); err != nil {
				return nil, err
			}
			continue
		}
		if err := expect(dec, '['); err != nil {
			return nil, err
		}
		for dec.More() {
			e, err := scanProvider(dec, data)
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func scanProvider(dec *json.Decoder, data []byte) (providerEntry, error) {
	e := providerEntry{module: span{-1, -1}, sha: span{-1, -1}}
	if err := expect(dec, '{'); err != nil {
		return e, err
	}
	for dec.More() {
		keyAt := next(data, dec.InputOffset())
		key, err := dec.Token()
		if err != nil {
			return e, err
		}
		start := next(data, dec.InputOffset())
		switch key {
		case "module", "sha256":
			v, err := dec.Token()
			if err != nil {
				return e, err
			}
			s, ok := v.(string)
			if !ok {
				return e, fmt.Errorf("%q must be a string", key)
			}
			sp := span{start, int(dec.InputOffset())}
			if key == "module" {
				e.module, e.moduleValue, e.moduleKey = sp, s, keyAt
			} else {
				e.sha = sp
			}
		default:
			if err := skip(dec); err != nil {
				return e, err
			}
		}
	}
	_, err := dec.Token()
	return e, err
}

// next returns the offset of the next token at or after off.
func next(data []byte, off int64) int {
	i := int(off)
	for i < len(data) && strings.IndexByte(" \t\r\n:,", data[i]) >= 0 {
		i++
	}
	return i
}

func expect(dec *json.Decoder, d json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return errors.New("the config ends early")
		}
		return err
	}
	if t != d {
		return fmt.Errorf("config: want %q, found %v", d, t)
	}
	return nil
}

func skip(dec *json.Decoder) error {
	var raw json.RawMessage
	return dec.Decode(&raw)
}
