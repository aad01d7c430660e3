package abi

import (
	"strings"
	"testing"
)

// BenchmarkDecode measures strict decoding plus validation of a 1 KiB text
// read result and a 100-entry list page, the host-side cost per call.
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
