package config

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

func TestClosest(t *testing.T) {
	keys := []string{"memory", "moduleSize", "output", "poolSize", "recycleAfter", "timeout"}
	for in, want := range map[string]string{
		"memry": "memory", "Timeout": "timeout", "pool-size": "poolSize", "recycle_after": "recycleAfter",
		"xyz": "", "outputs": "output", "mem": "",
	} {
		require.Equal(t, want, closest(in, keys), in)
	}
}

func TestLineCol(t *testing.T) {
	src := &source{name: "f", data: []byte("{\n  \"a\": 1,\n\t\"b\": [2]\n}")}
	for off, want := range map[int64][2]int{0: {1, 1}, 2: {2, 1}, 4: {2, 3}, 13: {3, 2}, 100: {4, 2}, -5: {1, 1}} {
		line, col := src.lineCol(off)
		require.Equal(t, want, [2]int{line, col}, "offset %d", off)
	}
	src.pos = map[string]int64{"": 0, "a": 9}
	require.Equal(t, "f:2:8", src.at("a"))
	require.Equal(t, "f:2:8", src.at("a.b[3].c"), "an unrecorded path falls back to its nearest parent")
	require.Equal(t, "f:1:1", src.at("zzz"))
	require.Equal(t, 2, src.line("a"))
	require.Zero(t, src.line("nope"))
}

// FuzzDecodeStrict: no input panics the config reader, and whatever it
// accepts encoding/json decodes to the same value.
func FuzzDecodeStrict(f *testing.F) {
	for _, name := range []string{"minimal.json", "full.json", "broken.json"} {
		b, err := os.ReadFile(testkit.Fixture("config", name))
		require.NoError(f, err)
		f.Add(b)
	}
	for _, s := range []string{`{}`, `[]`, `{"providers": [{"module": "x", "module": "y"}]}`, `{"server": {"pageSize": 1e400}}`,
		`{"providers": [{"limits": {"memory": "9999999999999GiB"}}]}`, "{\"a\":\"\xff\"}", `{"providers": [[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var fc fileConfig
		err := decodeStrict(&source{name: "fuzz.json", data: data}, &fc)
		if err != nil {
			require.NotEmpty(t, err.Error())
			return
		}
		var again fileConfig
		require.NoError(t, json.Unmarshal(data, &again))
		require.Equal(t, again, fc)
	})
}
