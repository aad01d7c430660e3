package config

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRewrite(t *testing.T) {
	in := `{
  "server": {"logLevel": "info"},
  "providers": [
    {
      "module": "oci://reg.example/a:1",
      "name": "a"
    },
    {"module": "b.wasm", "sha256": "old"},
    {
      "name": "c",
      "module": "c.wasm"
    }
  ]
}
`
	out, err := rewrite([]byte(in), func(i int, module string) (string, string, error) {
		if strings.HasPrefix(module, "oci://") {
			return module + "@sha256:aa", "11", nil
		}
		return module, strings.Repeat(string(rune('2'+i-1)), 2), nil
	})
	require.NoError(t, err)
	require.Equal(t, `{
  "server": {"logLevel": "info"},
  "providers": [
    {
      "module": "oci://reg.example/a:1@sha256:aa",
      "sha256": "11",
      "name": "a"
    },
    {"module": "b.wasm", "sha256": "22"},
    {
      "name": "c",
      "module": "c.wasm",
      "sha256": "33"
    }
  ]
}
`, string(out))
	_, err = rewrite([]byte(`{"providers": [{"name": "x"}]}`), nil)
	require.ErrorContains(t, err, `providers[0] has no "module"`)
}
