package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseFrontmatter(t *testing.T) {
	for _, c := range []struct{ name, md, err string }{
		{"ok crlf", "---\r\nname: a-b\r\ndescription: x\r\n---\r\nbody", ""},
		{"bom", "\ufeff---\nname: a\ndescription: x\n---\n", ""},
		{"no fence", "name: a\n", `must begin with a line "---"`},
		{"not closed", "---\nname: a\ndescription: x\n", `no closing "---"`},
		{"empty", "---\n---\n", "must be 1 to 64 characters"},
		{"list", "---\n- a\n---\n", "invalid SKILL.md frontmatter"},
		{"upper", "---\nname: Abc\ndescription: x\n---\n", "only lower-case letters"},
		{"double hyphen", "---\nname: a--b\ndescription: x\n---\n", "two in a row"},
		{"long name", "---\nname: " + strings.Repeat("a", 65) + "\ndescription: x\n---\n", "1 to 64"},
		{"no description", "---\nname: a\n---\n", "description must be a string"},
		{"number description", "---\nname: a\ndescription: 12\n---\n", "description must be a string"},
		{"long description", "---\nname: a\ndescription: " + strings.Repeat("d", 1025) + "\n---\n", "1 to 1024"},
		{"deep", "---\nname: a\ndescription: x\nm: " + strings.Repeat("[", 20) + strings.Repeat("]", 20) + "\n---\n", "nested deeper than 16"},
		{"int key", "---\nname: a\ndescription: x\nm: {1: x}\n---\n", "a key that is not a string"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fm, err := parseFrontmatter([]byte(c.md))
			if c.err != "" {
				require.ErrorIs(t, err, errFrontmatter)
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			_, err = json.Marshal(fm.fields)
			require.NoError(t, err)
		})
	}
}

// FuzzParseFrontmatter: nothing a provider puts in a SKILL.md panics the
// host, and what is accepted renders as JSON.
func FuzzParseFrontmatter(f *testing.F) {
	f.Add([]byte(refundsMD))
	f.Add([]byte(gitMD))
	f.Add([]byte("---\nname: a\ndescription: x\na: &a [1]\nb: [*a, *a]\n---\n"))
	f.Add([]byte("---\nname: a\ndescription: x\nt: 2026-01-02\n---\n"))
	f.Fuzz(func(t *testing.T, md []byte) {
		fm, err := parseFrontmatter(md)
		if err != nil {
			return
		}
		_, err = json.Marshal(fm.fields)
		require.NoError(t, err)
		require.NoError(t, checkSkillName(fm.name))
	})
}
