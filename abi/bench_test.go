package abi

import (
	"strings"
	"testing"
)

// BenchmarkDecode measures strict decoding plus validation of a 1 KiB text
// read result and a 100-entry list page, the host-side cost per call, and
// the decoding of a read result with raw content.
//
//	go test ./abi -run XXX -bench Decode -benchmem -count 6
func BenchmarkDecode(b *testing.B) {
	text := strings.Repeat("abcdefghijklmno\\n", 64)
	read := []byte(`{"contents":[{"uri":"bench:///1k","mimeType":"text/plain","text":"` + text + `"}]}`)
	var sb strings.Builder
	sb.WriteString(`{"resources":[`)
	for i := range 100 {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`{"uri":"bench:///item/1","name":"item 1","mimeType":"text/plain","size":1024}`)
	}
	sb.WriteString(`]}`)
	list := []byte(sb.String())
	space := URISpace{{Scheme: "bench"}}
	b.Run("read1k", func(b *testing.B) {
		b.SetBytes(int64(len(read)))
		for b.Loop() {
			var r ReadResult
			if err := Decode(read, &r); err != nil {
				b.Fatal(err)
			}
			if err := r.Validate(space); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The read result the SDKs write for raw content (a 1 KiB file from the
	// default provider): Decode's reflection-free path, and the general
	// decoder it stands in for.
	raw := []byte(`{"contents":[{"uri":"file:///tmp/mcp-wasm-files-4016160651/f","rawText":0,"annotations":{"lastModified":"2026-11-24T15:17:00.123456789Z"}}]}`)
	for _, d := range []struct {
		name   string
		decode func([]byte, any) error
	}{{"read-raw", Decode}, {"read-raw-general", decode}} {
		b.Run(d.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var r ReadResult
				if err := d.decode(raw, &r); err != nil {
					b.Fatal(err)
				}
				if r.Contents[0].RawText == nil {
					b.Fatal("no rawText")
				}
			}
		})
	}
	b.Run("list100", func(b *testing.B) {
		b.SetBytes(int64(len(list)))
		for b.Loop() {
			var r ListResult
			if err := Decode(list, &r); err != nil {
				b.Fatal(err)
			}
			if err := r.Validate(space); err != nil {
				b.Fatal(err)
			}
		}
	})
}
