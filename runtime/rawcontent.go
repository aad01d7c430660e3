package runtime

import (
	"context"
	"encoding/base64"
	"fmt"
	"unicode/utf8"
	"unsafe"

	"github.com/tetratelabs/wazero/api"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// Raw content (ABI §6.3). A guest may hand a read content's bytes to the
// host as they are, with content_write, and refer to them from its read
// result as {"rawText": N} or {"rawBlob": N}: the guest skips JSON-escaping
// text and base64-encoding blobs, and the host skips unescaping. The bodies
// count toward the output limit like the result itself.

// maxRawBodies bounds the bodies of one call (a read has at most
// abi.MaxListItems contents).
const maxRawBodies = abi.MaxListItems

func contentWrite(ctx context.Context, mod api.Module, stack []uint64) {
	st := enter(ctx, abi.ImportContentWrite)
	src := view(mod, abi.ImportContentWrite, api.DecodeU32(stack[0]), api.DecodeU32(stack[1]))
	if st.overLimit || len(st.output)+st.rawBytes+len(src) > st.outLimit || len(st.raw) >= maxRawBodies {
		st.overLimit = true
		stack[0] = api.EncodeI32(abi.ResultOverLimit)
		return
	}
	st.raw = append(st.raw, append([]byte(nil), src...))
	st.rawBytes += len(src)
	stack[0] = uint64(len(st.raw) - 1)
}

// resolveRaw replaces every raw reference of r with its body. Every body
// written must be used exactly once, and text must be valid UTF-8.
func resolveRaw(r *abi.ReadResult, raw [][]byte) error {
	used := make([]bool, len(raw))
	take := func(i int, idx *int) ([]byte, error) {
		switch {
		case *idx < 0 || *idx >= len(raw):
			return nil, fmt.Errorf("contents[%d] refers to content body %d, but %d were written", i, *idx, len(raw))
		case used[*idx]:
			return nil, fmt.Errorf("contents[%d] refers to content body %d, already used", i, *idx)
		}
		used[*idx] = true
		return raw[*idx], nil
	}
	for i := range r.Contents {
		c := &r.Contents[i]
		if c.RawText != nil && c.RawBlob != nil {
			return fmt.Errorf("contents[%d] has both rawText and rawBlob", i)
		}
		switch {
		case (c.RawText != nil || c.RawBlob != nil) && (c.Text != nil || c.Blob != nil):
			return fmt.Errorf("contents[%d] has a raw body and an inline text or blob", i)
		case c.RawText != nil:
			b, err := take(i, c.RawText)
			if err != nil {
				return err
			}
			if !utf8.Valid(b) {
				return fmt.Errorf("contents[%d]: rawText body is not valid UTF-8: send it as rawBlob", i)
			}
			s := bodyString(b)
			c.Text, c.RawText = &s, nil
		case c.RawBlob != nil:
			b, err := take(i, c.RawBlob)
			if err != nil {
				return err
			}
			s := base64.StdEncoding.EncodeToString(b)
			c.Blob, c.RawBlob = &s, nil
		}
	}
	for i, u := range used {
		if !u {
			return fmt.Errorf("content body %d was written but no content refers to it", i)
		}
	}
	return nil
}

// bodyString is a text body as a string without copying it again: the
// body is the host's own copy of guest memory, made by contentWrite for
// this call alone, and nothing writes to it once the guest call has
// returned, so the string's bytes never change (unsafe.String's
// requirement). A 1 MiB text read was otherwise copied twice on the host.
func bodyString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
