package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

// Client-side shapes of the Skills extension (SEP-2640).
type (
	skillFileE2E struct {
		URI    string `json:"uri"`
		Digest string `json:"digest"`
		Size   int    `json:"size"`
	}
	skillE2E struct {
		URI         string         `json:"uri"`
		Frontmatter map[string]any `json:"frontmatter"`
		Resources   []skillFileE2E `json:"resources"`
	}
	skillsListE2E struct {
		mcp.ResultBase
		ResultType string     `json:"resultType"`
		TTLMs      *int64     `json:"ttlMs"`
		Skills     []skillE2E `json:"skills"`
	}
	skillsGetE2E struct {
		mcp.ResultBase
		Skill skillE2E `json:"skill"`
	}
	skillsDirE2E struct {
		mcp.ResultBase
		Resources []mcp.Resource `json:"resources"`
	}
	skillsParamsE2E struct {
		mcp.ParamsBase
		URI string `json:"uri,omitempty"`
	}
)

// skillsTreeE2E makes a skills directory: a good skill with a nested
// template, a symlink out of the directory, a skill whose frontmatter
// names another directory, a directory that is not a skill name and a
// hidden file.
func skillsTreeE2E(t *testing.T) (dir string, md []byte) {
	t.Helper()
	dir = t.TempDir()
	md = []byte("---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nmetadata:\n  version: \"2.1.0\"\n---\n\nPick a template from `templates/`.\n")
	outside := filepath.Join(t.TempDir(), "secret.txt")
	for path, body := range map[string]string{
		"pdf-processing/SKILL.md":             string(md),
		"pdf-processing/templates/invoice.md": "Invoice\n",
		"impostor/SKILL.md":                   "---\nname: pdf-processing\ndescription: pretends\n---\n",
		"Bad_Name/SKILL.md":                   "---\nname: bad-name\ndescription: d\n---\n",
		"pdf-processing/.hidden/never-served": "hidden",
	} {
		p := filepath.Join(dir, path)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	require.NoError(t, os.WriteFile(outside, []byte("secret"), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "pdf-processing", "templates", "leak.md")))
	return dir, md
}

func skillsClientE2E(t *testing.T) *mcp.Client {
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e-skills", Version: "1"}, nil)
	require.NoError(t, mcp.AddSendingCustomMethod[*skillsParamsE2E, *skillsListE2E](c, "skills/list"))
	require.NoError(t, mcp.AddSendingCustomMethod[*skillsParamsE2E, *skillsGetE2E](c, "skills/get"))
	require.NoError(t, mcp.AddSendingCustomMethod[*skillsParamsE2E, *skillsDirE2E](c, "resources/directory/read"))
	return c
}

// TestE2E_SkillsDir: serve --skills-dir, read by the built-in files
// provider, answers the Skills extension to a go-sdk client on stdio and
// on HTTP, in both protocol eras; the symlink out of the directory and
// the skills that are not well-formed are not served.
func TestE2E_SkillsDir(t *testing.T) {
	dir, md := skillsTreeE2E(t)
	sum := sha256.Sum256(md)
	want := skillE2E{
		URI:         "skill://pdf-processing/SKILL.md",
		Frontmatter: map[string]any{"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents", "metadata": map[string]any{"version": "2.1.0"}},
		Resources: []skillFileE2E{
			{"skill://pdf-processing/SKILL.md", "sha256:" + hex.EncodeToString(sum[:]), len(md)},
			{"skill://pdf-processing/templates/invoice.md", "sha256:" + sha256Hex("Invoice\n"), 8},
		},
	}
	httpSrv := startHTTP(t, nil, "--skills-dir", dir)
	for _, tr := range []string{"stdio", "http"} {
		for _, rev := range []string{"2026-07-28", "2025-11-25"} {
			t.Run(tr+"/"+rev, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), testkit.Wait)
				defer cancel()
				var transport mcp.Transport = &mcp.StreamableClientTransport{Endpoint: httpSrv.url, HTTPClient: http.DefaultClient, MaxRetries: -1}
				if tr == "stdio" {
					cmd := exec.CommandContext(ctx, binary(t), append([]string{"serve"}, patientArgs([]string{"--cache-dir", testguest.CompileCache(), "--log-level", "warn", "--skills-dir", dir})...)...)
					cmd.Stderr = testWriter{t}
					transport = &mcp.CommandTransport{Command: cmd}
				}
				cs, err := skillsClientE2E(t).Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: rev})
				require.NoError(t, err)
				defer cs.Close()

				list, err := mcp.CallCustomMethod[*skillsParamsE2E, *skillsListE2E](ctx, cs, "skills/list", &skillsParamsE2E{})
				require.NoError(t, err)
				require.Equal(t, []skillE2E{want}, list.Skills, "the impostor, Bad_Name, the hidden file and the symlink are left out")
				require.Equal(t, rev == "2026-07-28", list.TTLMs != nil)

				got, err := mcp.CallCustomMethod[*skillsParamsE2E, *skillsGetE2E](ctx, cs, "skills/get", &skillsParamsE2E{URI: want.URI})
				require.NoError(t, err)
				require.Equal(t, want, got.Skill)

				_, err = mcp.CallCustomMethod[*skillsParamsE2E, *skillsGetE2E](ctx, cs, "skills/get", &skillsParamsE2E{URI: "skill://impostor/SKILL.md"})
				var werr *jsonrpc.Error
				require.ErrorAs(t, err, &werr)
				require.EqualValues(t, jsonrpc.CodeInvalidParams, werr.Code)
				require.Contains(t, werr.Message, `name "pdf-processing" differs from the skill's directory "impostor"`)

				d, err := mcp.CallCustomMethod[*skillsParamsE2E, *skillsDirE2E](ctx, cs, "resources/directory/read", &skillsParamsE2E{URI: "skill://pdf-processing/templates"})
				require.NoError(t, err)
				require.Len(t, d.Resources, 1)
				require.Equal(t, "skill://pdf-processing/templates/invoice.md", d.Resources[0].URI)

				_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://pdf-processing/templates/leak.md"})
				require.Error(t, err, "the symlink out of the skills directory")
				_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://pdf-processing/../../secret.txt"})
				require.Error(t, err)

				res, err := cs.ListResources(ctx, nil)
				require.NoError(t, err)
				named := map[string]string{}
				for _, r := range res.Resources {
					named[r.URI] = r.Name + ": " + r.Description
				}
				require.Equal(t, "pdf-processing: Extract, fill, and assemble PDF documents", named[want.URI], "a SKILL.md is named and described by its frontmatter")

				idx, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://index.json"})
				require.NoError(t, err)
				var index struct {
					Schema string `json:"$schema"`
					Skills []struct{ Name, Type, Description, URL string }
				}
				require.NoError(t, json.Unmarshal([]byte(idx.Contents[0].Text), &index))
				require.Equal(t, "https://schemas.agentskills.io/discovery/0.2.0/schema.json", index.Schema)
				require.Len(t, index.Skills, 1)
				require.Equal(t, "skill-md", index.Skills[0].Type)
				require.Equal(t, want.URI, index.Skills[0].URL)
			})
		}
	}
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// TestE2E_SkillsDirRefused: --skills-dir names what is wrong with a
// directory that cannot hold skills.
func TestE2E_SkillsDirRefused(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	for _, c := range []struct{ dir, want string }{
		{filepath.Join(t.TempDir(), "missing"), "give an existing directory of skills"},
		{file, "not a readable directory: give a directory holding NAME/SKILL.md"},
		{"/", "is the root of the file system (the whole disk): give the directory that holds the skills"},
	} {
		out, err := exec.Command(binary(t), "serve", "--skills-dir", c.dir).CombinedOutput()
		require.Error(t, err, "%s", out)
		require.Contains(t, string(out), c.want)
	}
}

// TestE2E_SkillsDirWithConfig: --skills-dir beside a config file's
// providers; a reload (SIGHUP) of the config keeps the skills.
func TestE2E_SkillsDirWithConfig(t *testing.T) {
	dir, _ := skillsTreeE2E(t)
	a, b := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(a, "a.txt"), []byte("a"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(b, "b.txt"), []byte("b"), 0o644))
	cfgPath := filepath.Join(t.TempDir(), "mcp.json")
	write := func(d string) {
		require.NoError(t, os.WriteFile(cfgPath, []byte(`{"server": {"watch": false}, "providers": [{"module": "builtin://files", "name": "docs", "grants": {"dirs": [{"host": "`+d+`"}]}}]}`), 0o644))
	}
	write(a)
	srv := startHTTP(t, nil, "--config", cfgPath, "--skills-dir", dir)
	check := func(want string) bool {
		ctx, cancel := context.WithTimeout(context.Background(), testkit.Wait)
		defer cancel()
		cs, err := skillsClientE2E(t).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.url, HTTPClient: http.DefaultClient, MaxRetries: -1}, nil)
		require.NoError(t, err)
		defer cs.Close()
		list, err := mcp.CallCustomMethod[*skillsParamsE2E, *skillsListE2E](ctx, cs, "skills/list", &skillsParamsE2E{})
		require.NoError(t, err)
		require.Len(t, list.Skills, 1)
		res, err := cs.ListResources(ctx, nil)
		require.NoError(t, err)
		for _, r := range res.Resources {
			if filepath.Base(r.URI) == filepath.Base(want) {
				return true
			}
		}
		return false
	}
	require.True(t, check(filepath.Join(a, "a.txt")))
	write(b)
	require.NoError(t, srv.cmd.Process.Signal(syscall.SIGHUP))
	require.Eventually(t, func() bool { return check(filepath.Join(b, "b.txt")) }, testkit.Wait, 100*time.Millisecond, "the reload did not serve the new directory")
}
