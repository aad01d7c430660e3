package gitobj

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzApplyDelta: any delta on any base either fails or makes exactly the
// size it declared, never more than the cap.
func FuzzApplyDelta(f *testing.F) {
	f.Add([]byte("base"), copyAll(4, 4))
	f.Add([]byte("b"), copyAll(1, 1<<40))
	f.Add([]byte(""), []byte{0, 3, 3, 'a', 'b', 'c'})
	f.Add([]byte("xy"), []byte{2, 2, 0x80})
	f.Fuzz(func(t *testing.T, base, delta []byte) {
		out, err := applyDelta(base, delta, 1<<20)
		if err != nil {
			return
		}
		_, rest, _ := deltaVarint(delta)
		want, _, _ := deltaVarint(rest)
		require.EqualValues(t, want, len(out))
	})
}

// FuzzParseTree: any bytes parse or fail; no entry has an empty,
// dotted or slashed name, and the cap holds.
func FuzzParseTree(f *testing.F) {
	f.Add(treeEntry("100644", "a", fakeID(1)))
	f.Add(append(treeEntry("40000", "d", fakeID(1)), treeEntry("120000", "l", fakeID(2))...))
	f.Add([]byte("100644 \x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ents, err := parseTree(ID{}, b, 100)
		if err != nil {
			return
		}
		require.LessOrEqual(t, len(ents), 100)
		for _, e := range ents {
			require.NotContains(t, []string{"", ".", ".."}, e.Name)
			require.NotContains(t, e.Name, "/")
		}
	})
}

// FuzzParseCommit: any bytes parse or fail, never panic; a parsed commit
// has a tree.
func FuzzParseCommit(f *testing.F) {
	f.Add([]byte("tree " + fakeID(1).String() + "\nparent " + fakeID(2).String() + "\nauthor A <a> 1 +0100\ncommitter C <c> 2 -0530\n\nmsg\n"))
	f.Add([]byte("tree x\n\n"))
	f.Add([]byte("committer <> 99999999999999999999 +99\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := parseCommit(ID{}, b)
		if err == nil {
			require.NotEqual(t, ID{}, c.Tree)
			_ = c.Subject()
		}
	})
}

// FuzzParseIndex: any bytes parse or fail; a parsed index answers find
// for every name it holds without panicking.
func FuzzParseIndex(f *testing.F) {
	var buf bytes.Buffer
	buf.WriteString("\xfftOc\x00\x00\x00\x02")
	buf.Write(make([]byte, 1024))
	buf.Write(make([]byte, 40))
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		var p pack
		if p.parseIndex(b) != nil {
			return
		}
		for i := 0; i < len(p.names)/20 && i < 64; i++ {
			var id ID
			copy(id[:], p.names[i*20:])
			p.find(id)
		}
	})
}

// FuzzMyers: any two texts give an edit script that, replayed on the
// first, makes the second, or the script gives up past its edit cap.
func FuzzMyers(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nc\nd\n", 10)
	f.Add("", "x\n", 1)
	f.Add("x", "", 0)
	f.Fuzz(func(t *testing.T, x, y string, maxD int) {
		maxD = max(0, maxD%64)
		a, b := splitLines(x), splitLines(y)
		ops, ok := myers(a, b, maxD)
		if !ok {
			return
		}
		var got []string
		ai := 0
		for _, o := range ops {
			switch o.kind {
			case ' ':
				require.Equal(t, a[o.a], b[o.b])
				require.Equal(t, ai, o.a)
				got = append(got, a[o.a])
				ai++
			case '-':
				require.Equal(t, ai, o.a)
				ai++
			case '+':
				got = append(got, b[o.b])
			}
		}
		if len(ops) == 0 {
			got, ai = a, len(a) // no change
		}
		require.Equal(t, len(a), ai)
		require.Equal(t, strings.Join(b, ""), strings.Join(got, ""))
	})
}
