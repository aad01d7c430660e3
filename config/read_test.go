package config

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/runtime"
	mcpserver "github.com/mcp-wasm/mcp-wasm/server"
)

func TestReadConfig_problems(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string // each a line of the error, after "DIR/"
	}{
		{"unknown key with line and suggestion", `{
  "providers": [
    {
      "module": "minimal.wasm",
      "limits": { "memry": "16MiB" }
    }
  ]
}`, []string{`mcp.json:5:19: providers[0].limits (provider "minimal.wasm"): unknown key "memry": did you mean "memory"?`}},
		{"unknown top-level key", `{"provders": []}`, []string{`mcp.json:1:2: unknown key "provders": did you mean "providers"?`}},
		{"key case is exact", `{"providers": [{"Module": "minimal.wasm"}]}`, []string{`mcp.json:1:17: providers[0] (provider "minimal.wasm"): unknown key "Module": did you mean "module"?`}},
		{"snake case is suggested", `{"providers": [{"module": "minimal.wasm", "limits": {"pool_size": 2}}]}`, []string{`unknown key "pool_size": did you mean "poolSize"?`}},
		{"a renamed key", `{"providers": [{"module": "minimal.wasm", "mount": "docs"}]}`, []string{`providers[0] (provider "minimal.wasm"): unknown key "mount": it is now called "schemePrefix"`}},
		{"bad scheme prefix", `{"providers": [{"module": "minimal.wasm", "schemePrefix": "Docs"}]}`, []string{`providers[0].schemePrefix (provider "minimal.wasm"): "Docs" is not a scheme prefix`}},
		{"no suggestion lists the keys", `{"providers": [{"module": "minimal.wasm", "cache": {"zzzzzz": 1}}]}`, []string{`unknown key "zzzzzz": the keys here are scope, ttl`}},
		{"wrong type", `{"providers": [{"module": "minimal.wasm", "limits": {"poolSize": "2"}}]}`, []string{`mcp.json:1:66: providers[0].limits.poolSize (provider "minimal.wasm"): must be a whole number, not a string: remove the quotes`}},
		{"wrong container", `{"providers": {"module": "minimal.wasm"}}`, []string{`mcp.json:1:15: providers: must be an array [...], not an object`}},
		{"fraction", `{"providers": [{"module": "minimal.wasm", "limits": {"poolSize": 2.5}}]}`, []string{`providers[0].limits.poolSize (provider "minimal.wasm"): is 2.5: use a whole number`}},
		{"null", `{"providers": [{"module": "minimal.wasm", "name": null}]}`, []string{`mcp.json:1:51: providers[0].name (provider "minimal.wasm"): is null: give it a value or remove the key`}},
		{"duplicate key", "{\"providers\": [{\"module\": \"minimal.wasm\",\n \"module\": \"good.wasm\"}]}", []string{`mcp.json:2:2: providers[0] (provider "good.wasm"): duplicate key "module": keep only one`}},
		{"duplicate key in a map", `{"providers": [{"module": "minimal.wasm", "grants": {"config": {"a": "1", "a": "2"}}}]}`, []string{`duplicate key "a": keep only one`}},
		{"bad duration", `{"providers": [{"module": "minimal.wasm", "limits": {"timeout": "5 seconds"}}]}`, []string{`providers[0].limits.timeout (provider "minimal.wasm"): duration "5 seconds": use a number with a unit, such as "500ms", "5s" or "1m"`}},
		{"duration as a number", `{"providers": [{"module": "minimal.wasm", "limits": {"timeout": 5}}]}`, []string{`providers[0].limits.timeout (provider "minimal.wasm"): must be a duration string such as "5s"`}},
		{"negative duration", `{"providers": [{"module": "minimal.wasm", "limits": {"timeout": "-1s"}}]}`, []string{`duration "-1s"`}},
		{"bad size", `{"providers": [{"module": "minimal.wasm", "limits": {"memory": "64 megs"}}]}`, []string{`providers[0].limits.memory (provider "minimal.wasm"): size "64 megs": use a number with an optional unit`}},
		{"several problems at once", "{\"providers\": [{\"module\": \"minimal.wasm\",\n\"limits\": {\"memry\": 1,\n\"poolSize\": true}}]}",
			[]string{`mcp.json: 2 problems:`, `mcp.json:2:12: providers[0].limits`, `mcp.json:3:13: providers[0].limits.poolSize`}},
		{"syntax error", "{\"providers\": [\n  {\"module\": \"minimal.wasm\",}\n]}", []string{`mcp.json:2:28: invalid JSON`}},
		{"truncated", `{"providers": [`, []string{`the JSON ends too early`}},
		{"empty file", "  \n", []string{`the file is empty`}},
		{"trailing data", `{"providers": [{"module": "minimal.wasm"}]} {}`, []string{`unexpected data after the end of the top-level object`}},
		{"top level not an object", `[]`, []string{`mcp.json:1:1: the file: must be an object {...}, not an array`}},
		{"not UTF-8", "{\"providers\": [{\"module\": \"\xff\"}]}", []string{`not UTF-8 text`}},
		{"no providers", `{"providers": []}`, []string{`mcp.json:1:15: no providers`}},
		{"missing module key", `{"providers": [{"name": "x"}]}`, []string{`providers[0].module (provider "x"): is missing`}},
		{"missing module file", "{\"providers\": [\n  {\"module\": \"nope.wasm\"}\n]}", []string{`mcp.json:2:14: providers[0].module (provider "nope.wasm"): nope.wasm: no such file`}},
		{"missing granted dir", `{"providers": [{"module": "minimal.wasm", "grants": {"dirs": [{"host": "nodir"}]}}]}`, []string{`providers[0].grants.dirs[0].host (provider "minimal.wasm"): nodir: no such file or directory`}},
		{"relative guest path", `{"providers": [{"module": "minimal.wasm", "grants": {"dirs": [{"host": "docs", "guest": "data"}]}}]}`, []string{`providers[0].grants.dirs[0].guest (provider "minimal.wasm"): "data": give an absolute, clean path other than "/"`}},
		{"guest path /", `{"providers": [{"module": "minimal.wasm", "grants": {"dirs": [{"host": "docs", "guest": "/"}]}}]}`, []string{`grants.dirs[0].guest (provider "minimal.wasm"): "/": give an absolute`}},
		{"unclean guest path", `{"providers": [{"module": "minimal.wasm", "grants": {"dirs": [{"host": "docs", "guest": "/a/../etc"}]}}]}`, []string{`grants.dirs[0].guest (provider "minimal.wasm"): "/a/../etc"`}},
		{"nested guest paths", `{"providers": [{"module": "minimal.wasm", "grants": {"dirs": [{"host": "docs", "guest": "/data"}, {"host": ".", "guest": "/data/more"}]}}]}`,
			[]string{`grants.dirs[1].guest (provider "minimal.wasm"): "/data/more" overlaps "/data" of an earlier grant`}},
		{"missing env var", `{"providers": [{"module": "minimal.wasm", "grants": {"secretsEnv": {"token": "MCPW_TEST_UNSET"}}}]}`, []string{`providers[0].grants.secretsEnv.token (provider "minimal.wasm"): environment variable "MCPW_TEST_UNSET" is not set`}},
		{"bad cache scope", `{"providers": [{"module": "minimal.wasm", "cache": {"scope": "world"}}]}`, []string{`providers[0].cache.scope (provider "minimal.wasm"): is "world": use "public" or "private"`}},
		{"cache ttl over a year", `{"providers": [{"module": "minimal.wasm", "cache": {"ttl": "9000h", "scope": "public"}}]}`, []string{`providers[0].cache.ttl (provider "minimal.wasm"): is 9000h0m0s: give a ttl between 0s and one year (8760h)`}},
		{"bad log level", `{"server": {"logLevel": "loud"}, "providers": [{"module": "minimal.wasm"}]}`, []string{`mcp.json:1:25: server.logLevel is "loud": use debug, info, warn or error`}},
		{"bad page size", `{"server": {"pageSize": 0}, "providers": [{"module": "minimal.wasm"}]}`, []string{`server.pageSize is 0: use 1 to 10000`}},
		{"zero server bounds", `{"server": {"maxConcurrency": 0, "maxSubscriptions": -1}, "providers": [{"module": "minimal.wasm"}]}`, []string{
			`server.maxConcurrency is 0: give a positive number`, `server.maxSubscriptions is -1`}},
		{"zero quarantine", `{"providers": [{"module": "minimal.wasm", "limits": {"initTimeout": "0s", "quarantine": {"after": 0, "maxBackoff": "0s"}}}]}`, []string{
			`providers[0].limits.initTimeout (provider "minimal.wasm"): is 0`, `providers[0].limits.quarantine.after (provider "minimal.wasm"): is 0`,
			`providers[0].limits.quarantine.maxBackoff (provider "minimal.wasm"): is 0`}},
		{"zero idle timeout", `{"providers": [{"module": "minimal.wasm", "limits": {"idleTimeout": "0s"}}]}`, []string{
			`providers[0].limits.idleTimeout (provider "minimal.wasm"): is 0`}},
		{"zero limits", `{"providers": [{"module": "minimal.wasm", "limits": {"timeout": "0s", "memory": 0, "poolSize": 0}}]}`, []string{
			`providers[0].limits.timeout (provider "minimal.wasm"): is 0: give a positive value, or remove the key for the default`,
			`providers[0].limits.memory (provider "minimal.wasm"): is 0`, `providers[0].limits.poolSize (provider "minimal.wasm"): is 0`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := testkit.WriteConfig(t, tt.text)
			_, err := Read(path, testkit.NoEnv)
			require.Error(t, err)
			msg := strings.ReplaceAll(err.Error(), filepath.Dir(path)+string(filepath.Separator), "")
			for _, w := range tt.want {
				require.Contains(t, msg, w)
			}
		})
	}
}

func TestReadConfig_full(t *testing.T) {
	env := map[string]string{"MCPW_EXAMPLE_REGION": "eu-west", "MCPW_EXAMPLE_TOKEN": "s3cret"}
	cc, err := Read(testkit.Fixture("config", "full.json"), func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	require.NoError(t, err)
	require.Equal(t, 200, *cc.Server.PageSize)
	require.Equal(t, "json", *cc.Server.LogFormat)
	require.Equal(t, "", *cc.Server.CacheDir)
	require.Len(t, cc.Providers, 2)

	docs := cc.Providers[0]
	require.Equal(t, "docs", docs.Name)
	require.Equal(t, ModuleRef(testkit.Fixture("wat", "minimal.wasm")), docs.Module)
	require.Equal(t, &abi.CacheHint{TTLMs: 30_000, Scope: abi.ScopePrivate}, docs.Cache)
	require.Equal(t, 2*time.Second, docs.RuntimeConfig().Timeout())
	require.Equal(t, 2*time.Minute, docs.RuntimeConfig().IdleTimeout(), "limits.idleTimeout reaches the runtime")
	require.Equal(t, runtime.DefaultIdleTimeout, cc.Providers[1].RuntimeConfig().IdleTimeout())
	g := docs.RuntimeConfig().Grants()
	require.Equal(t, []runtime.DirGrant{{HostPath: testkit.Fixture("config", "docs"), GuestPath: "/docs"}}, g.Dirs)
	require.Equal(t, map[string]string{"greeting": "hello", "region": "eu-west"}, g.Config)
	require.Equal(t, map[string]string{"api_token": "s3cret"}, g.Secrets)
	require.Equal(t, runtime.HTTPGrant{
		Allow: []runtime.HTTPRule{
			{Prefix: "https://api.example.com/v1/", Methods: []string{"GET", "POST"}},
			{Prefix: "https://status.example.com/"},
		},
		MaxResponseBytes: 2 << 20, MaxRequestBytes: 16 << 10, Timeout: 3 * time.Second,
	}, g.HTTP)
	require.True(t, g.Clock)
	require.True(t, g.Random)
	require.Equal(t, "timeout 2s, memory 16MiB, output 1MiB, module 8MiB, pool 2, idle 2m0s, recycle after 1000 calls, init 3s, compile 2m0s, quarantine after 3 faults for 2s to 1m0s", docs.Limits.String())
	require.Equal(t, "timeout 5s, memory 1MiB, output 4MiB, module 32MiB, pool 4, idle 30s, recycle never, init 10s, compile 1m0s, quarantine after 5 faults for 1s to 5m0s", cc.Providers[1].Limits.String())
	require.Equal(t, 8, *cc.Server.MaxConcurrency)
	require.Equal(t, 50, *cc.Server.MaxSubscriptions)
	require.Equal(t, 5*time.Second, cc.MaxTimeout())
	require.Equal(t, 13, cc.Line("providers[0]"))
	require.Equal(t, 13, docs.Line())
	require.Contains(t, docs.Where("limits"), `full.json:34:17: providers[0].limits (provider "docs")`)
}

// TestRead_moduleReferences: a path is made absolute and must exist; a
// reference with a scheme is left as written, for the resolver.
func TestRead_moduleReferences(t *testing.T) {
	path := testkit.WriteConfig(t, `{"providers": [{"module": "minimal.wasm"}, {"module": "oci://registry.example/notes:1", "name": "n"}]}`)
	cfg, err := Read(path, testkit.NoEnv)
	require.NoError(t, err)
	p, isFile := cfg.Providers[0].Module.Path()
	require.True(t, isFile)
	require.Equal(t, filepath.Join(filepath.Dir(path), "minimal.wasm"), p)
	require.Equal(t, ModuleRef("oci://registry.example/notes:1"), cfg.Providers[1].Module)
	_, isFile = cfg.Providers[1].Module.Path()
	require.False(t, isFile)
}

func TestReadConfig_envAndLiteralConflicts(t *testing.T) {
	path := testkit.WriteConfig(t, `{"providers": [{"module": "minimal.wasm", "grants": {
		"config": {"a": "1"}, "configEnv": {"a": "A"},
		"secrets": {"b": "2"}, "configEnv2": {}
	}}]}`)
	_, err := Read(path, testkit.NoEnv)
	require.ErrorContains(t, err, `unknown key "configEnv2": did you mean "configEnv"?`)

	path = testkit.WriteConfig(t, `{"providers": [{"module": "minimal.wasm", "grants": {
		"config": {"a": "1"}, "configEnv": {"a": "A"}, "secrets": {"b": "2"}, "secretsEnv": {"c": "C"}, "clock": false
	}}]}`)
	env := func(k string) (string, bool) { return strings.ToLower(k), true }
	_, err = Read(path, env)
	require.ErrorContains(t, err, `providers[0].grants.configEnv.a (provider "minimal.wasm"): key "a" is also given a literal value: keep one`)

	path = testkit.WriteConfig(t, `{"providers": [{"module": "minimal.wasm", "grants": {"config": {"a": "1"}, "secretsEnv": {"a": "A"}}}]}`)
	_, err = Read(path, env)
	require.ErrorContains(t, err, `key "a" is granted both as config and as a secret: grant it once`)
}

// TestSchemaMatchesTypes walks fileConfig and docs/config.schema.json side
// by side: every object has exactly the keys of its Go type and refuses
// others, so the schema editors use never drifts from what serve reads.
func TestSchemaMatchesTypes(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(testguest.Root(), "docs", "config.schema.json"))
	require.NoError(t, err)
	var schema map[string]any
	require.NoError(t, json.Unmarshal(b, &schema))
	defs := schema["$defs"].(map[string]any)
	resolve := func(node map[string]any) map[string]any {
		if ref, ok := node["$ref"].(string); ok {
			return defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
		}
		return node
	}
	var walk func(path string, tp reflect.Type, node map[string]any)
	walk = func(path string, tp reflect.Type, node map[string]any) {
		node = resolve(node)
		for tp.Kind() == reflect.Pointer {
			tp = tp.Elem()
		}
		switch tp.Kind() {
		case reflect.Struct:
			if reflect.PointerTo(tp).Implements(unmarshalerType) {
				return
			}
			require.Equal(t, false, node["additionalProperties"], "%s: the schema must refuse unknown keys", path)
			props := node["properties"].(map[string]any)
			fields := jsonFields(tp)
			require.ElementsMatch(t, slices.Collect(maps.Keys(fields)), slices.Collect(maps.Keys(props)), "%s: keys differ", path)
			for k, ft := range fields {
				walk(path+"."+k, ft, props[k].(map[string]any))
			}
		case reflect.Slice:
			walk(path+"[]", tp.Elem(), node["items"].(map[string]any))
		}
	}
	walk("", reflect.TypeFor[fileConfig](), schema)
}

// TestSchemaBounds: the bounds and defaults the schema shows editors are
// the ones the server and runtime apply.
func TestSchemaBounds(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(testguest.Root(), "docs", "config.schema.json"))
	require.NoError(t, err)
	var schema map[string]any
	require.NoError(t, json.Unmarshal(b, &schema))
	at := func(path ...string) map[string]any {
		node := schema
		for _, p := range path {
			node = node[p].(map[string]any)
		}
		return node
	}
	server := at("$defs", "server", "properties")
	limits := at("$defs", "limits", "properties")
	for _, c := range []struct {
		name          string
		node          map[string]any
		min, max, def float64
	}{
		{"server.pageSize", server["pageSize"].(map[string]any), 1, mcpserver.MaxPageSize, mcpserver.DefaultPageSize},
		{"server.maxSubscriptions", server["maxSubscriptions"].(map[string]any), 1, mcpserver.MaxSubscriptions, mcpserver.DefaultMaxSubscriptions},
		{"limits.poolSize", limits["poolSize"].(map[string]any), 1, 256, runtime.DefaultPoolSize},
	} {
		require.Equal(t, c.min, c.node["minimum"], "%s: minimum", c.name)
		require.Equal(t, c.max, c.node["maximum"], "%s: maximum", c.name)
		require.Equal(t, c.def, c.node["default"], "%s: default", c.name)
	}
	require.Equal(t, float64(runtime.DefaultFaultThreshold), at("$defs", "quarantine", "properties", "after")["default"], "limits.quarantine.after: default")
}

// TestExampleConfigs keeps the examples valid: the files in
// testdata/config (but broken.json) and the one in docs/config.md.
func TestExampleConfigs(t *testing.T) {
	env := func(string) (string, bool) { return "x", true }
	for _, name := range []string{"minimal.json", "full.json"} {
		_, err := Read(testkit.Fixture("config", name), env)
		require.NoError(t, err, name)
	}
	_, err := Read(testkit.Fixture("config", "broken.json"), env)
	require.ErrorContains(t, err, `broken.json:6:9: providers[0].limits (provider "../wat/minimal.wasm"): unknown key "memry"`)

	doc, err := os.ReadFile(filepath.Join(testguest.Root(), "docs", "config.md"))
	require.NoError(t, err)
	m := regexp.MustCompile("(?s)<!-- config example -->\\s*```json\n(.*?)```").FindSubmatch(doc)
	require.NotNil(t, m, "docs/config.md must hold the config example after <!-- config example -->")
	src := &source{name: "docs/config.md", data: m[1]}
	var fc fileConfig
	require.NoError(t, decodeStrict(src, &fc))
	require.NotEmpty(t, fc.Providers)
}

func TestValidSchemePrefix(t *testing.T) {
	for m, ok := range map[string]bool{"docs": true, "a-1": true, "": false, "1a": false, "Docs": false, "a+b": false, "a.b": false,
		"abcdefghijklmnopqrstuvwxyzabcdef": true, "abcdefghijklmnopqrstuvwxyzabcdefg": false} {
		require.Equal(t, ok, ValidSchemePrefix(m), m)
	}
}

func TestRead_bus(t *testing.T) {
	cfg, err := Read(testkit.WriteConfig(t, `{"server": {"bus": "rediss://redis.internal:6380/2"}, "providers": [{"module": "minimal.wasm"}]}`), testkit.NoEnv)
	require.NoError(t, err)
	require.Equal(t, "rediss://redis.internal:6380/2", *cfg.Server.Bus)
	for _, bad := range []string{`"http://redis:6379"`, `"redis://"`, `"6379"`} {
		_, err := Read(testkit.WriteConfig(t, `{"server": {"bus": `+bad+`}, "providers": [{"module": "minimal.wasm"}]}`), testkit.NoEnv)
		require.ErrorContains(t, err, "server.bus", bad)
	}
}

func TestRead_readCache(t *testing.T) {
	for text, want := range map[string]uint64{`"16MiB"`: 16 << 20, `0`: 0, `1048576`: 1 << 20} {
		cfg, err := Read(testkit.WriteConfig(t, `{"server": {"readCache": `+text+`}, "providers": [{"module": "minimal.wasm"}]}`), testkit.NoEnv)
		require.NoError(t, err, text)
		require.Equal(t, want, *cfg.Server.ReadCache, text)
	}
	_, err := Read(testkit.WriteConfig(t, `{"server": {"readCache": "lots"}, "providers": [{"module": "minimal.wasm"}]}`), testkit.NoEnv)
	require.ErrorContains(t, err, "server.readCache")
}

func TestRead_listCache(t *testing.T) {
	for text, want := range map[string]uint64{`"8MiB"`: 8 << 20, `0`: 0} {
		cfg, err := Read(testkit.WriteConfig(t, `{"server": {"listCache": `+text+`}, "providers": [{"module": "minimal.wasm"}]}`), testkit.NoEnv)
		require.NoError(t, err, text)
		require.Equal(t, want, *cfg.Server.ListCache, text)
	}
	_, err := Read(testkit.WriteConfig(t, `{"server": {"listCache": "lots"}, "providers": [{"module": "minimal.wasm"}]}`), testkit.NoEnv)
	require.ErrorContains(t, err, "server.listCache")
}
