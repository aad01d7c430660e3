package mcpw

import (
	"errors"
	"math"
	"math/bits"
	"strconv"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// The JSON encoder for the abi output payloads. It writes them byte for
// byte as encoding/json would (HTML escaping off, no trailing newline):
// members in struct order, omitempty honoured, nil slices as null, and
// pointers written when set even if they point at a zero value ("text":"",
// "size":0). FuzzEncoder and the differential tests hold it to that, and
// TestEncoderCoversEveryField fails when abi gains a field this misses.
//
// Why not encoding/json: its reflection costs a Go guest ~100 µs for a
// 1 KiB read, because every jump in guest code costs ~24 ns (swar.go).
// So these are plain append functions on a local slice (a slice kept in a
// struct costs a write-barrier jump per update), constant parts are
// appended together with the string that follows them, and a function
// returns ok=false only for what JSON cannot hold: a NaN or infinite float.

var errFloat = errors.New("json: unsupported value: NaN or infinite float")

// appendPayload appends v, a pointer to an abi output payload.
func appendPayload(b []byte, v any) ([]byte, error) {
	ok := true
	switch v := v.(type) {
	case *abi.Describe:
		b = appendDescribe(b, v)
	case *abi.ListResult:
		b, ok = appendListResult(b, v)
	case *abi.TemplatesResult:
		b, ok = appendTemplatesResult(b, v)
	case *abi.ReadResult:
		b, ok = appendReadResult(b, v)
	case *abi.CompleteResult:
		b = appendCompleteResult(b, v)
	case *abi.ChangesResult:
		b = appendChangesResult(b, v)
	case *abi.Error:
		b = appendError(b, v)
	default:
		return b, errors.New("json: not an abi output payload")
	}
	if !ok {
		return b, errFloat
	}
	return b, nil
}

// first returns s for the first element of an array and "," + s after it.
// s is a constant starting with ','; slicing it costs no jump.
func first(s string, i int) string { return s[1-min(i, 1):] }

// key appends a member name in an object whose members are all optional:
// with a comma unless the object is still empty.
func key(b []byte, name string) []byte {
	if b[len(b)-1] != '{' {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, name...)
	return append(b, '"', ':')
}

// appendStrings appends a []string as a JSON array, nil as null.
func appendStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		b = appendMember(b, first(",", i), s)
	}
	return append(b, ']')
}

// appendFloat appends f as encoding/json does (like ES6 number-to-string);
// ok is false for NaN and infinities, which JSON cannot hold.
func appendFloat(b []byte, f float64) (_ []byte, ok bool) {
	// A priority is usually a multiple of 0.001 in [0, 1]: then f is the
	// double nearest n/1000, so its shortest form is n/1000's decimals,
	// written here without strconv's digit loops.
	if k := f * 1000; k >= 0 && k <= 1000 && math.Float64bits(f)>>63 == 0 && float64(int(k))/1000 == f {
		return appendMilli(b, int(k)), true
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}

// appendMilli appends n/1000 for n in [0, 1000] as strconv formats it:
// "0", "1", or "0." and up to three digits without trailing zeros.
func appendMilli(b []byte, n int) []byte {
	if n == 0 || n == 1000 {
		return append(b, byte('0'+n/1000))
	}
	d := [5]byte{'0', '.', byte('0' + n/100), byte('0' + n/10%10), byte('0' + n%10)}
	// Drop trailing zeros: 2 if n%100 == 0, else 1 if n%10 == 0.
	trim := 1 - min(n%10, 1) + 1 - min(n%100, 1)
	return append(b, d[:5-trim]...)
}

func appendCache(b []byte, c *abi.CacheHint) []byte {
	b = appendIntMember(b, `,"cache":{"ttlMs":`, c.TTLMs)
	b = appendMember(b, `,"scope":`, c.Scope)
	return append(b, '}')
}

func appendAnnotations(b []byte, a *abi.Annotations) (_ []byte, ok bool) {
	b = append(b, `,"annotations":{`...)
	none := 1 // 1 while no member is written: slices the comma off
	if len(a.Audience) > 0 {
		b = append(b, `"audience":`...)
		b = appendStrings(b, a.Audience)
		none = 0
	}
	ok = true
	if a.Priority != nil {
		b = append(b, `,"priority":`[none:]...)
		b, ok = appendFloat(b, *a.Priority)
		none = 0
	}
	if a.LastModified != "" {
		b = appendMember(b, `,"lastModified":`[none:], a.LastModified)
	}
	return append(b, '}'), ok
}

func appendIcons(b []byte, icons []abi.Icon) []byte {
	b = append(b, `,"icons":[`...)
	for i := range icons {
		ic := &icons[i]
		b = appendMember(b, first(`,{"src":`, i), ic.Src)
		if ic.MIMEType != "" {
			b = appendMember(b, `,"mimeType":`, ic.MIMEType)
		}
		if len(ic.Sizes) > 0 {
			b = append(b, `,"sizes":`...)
			b = appendStrings(b, ic.Sizes)
		}
		if ic.Theme != "" {
			b = appendMember(b, `,"theme":`, ic.Theme)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendIntMember appends prefix (a constant such as `,"size":`) and then
// strconv.AppendInt(nil, n, 10), without its digit loop: below 10^16 the
// digits are computed in straight-line code, so a size costs the same few
// operations whatever its length.
func appendIntMember(b []byte, prefix string, n int64) []byte {
	if k := len(b); uint64(n) < 1e16 && cap(b)-k >= len(prefix)+16 {
		u := uint64(n)
		// The digit count, from the bit length; the subtraction's sign
		// bit corrects the estimate down by one when u is below 10^t.
		t := bits.Len64(u|1) * 1233 >> 12
		d := t + 1 - int(((u|1)-pow10[t])>>63)
		var buf [16]byte
		put4(buf[0:4], u/1e12)
		put4(buf[4:8], u/1e8%1e4)
		put4(buf[8:12], u/1e4%1e4)
		put4(buf[12:16], u%1e4)
		b = b[:k+len(prefix)+d]
		copy(b[k:], prefix)
		copy(b[k+len(prefix):], buf[16-d:])
		return b
	}
	return strconv.AppendInt(append(b, prefix...), n, 10)
}

// put4 writes the four digits of x < 10000.
func put4(b []byte, x uint64) {
	hi, lo := 2*(x/100), 2*(x%100)
	_ = b[3]
	b[0], b[1], b[2], b[3] = digitPairs[hi], digitPairs[hi+1], digitPairs[lo], digitPairs[lo+1]
}

const digitPairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"

var pow10 = [...]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16}
