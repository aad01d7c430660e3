// Package gittest is what the git provider's tests share (the object reader
// in gitobj, the provider in gitprov, the built module's end-to-end tests):
// the real git, run in a repository of the test's with nothing of the
// machine's configuration, and files written into a work tree. It is for
// tests only (imports_test.go keeps it out of the provider), and like the
// guests it imports only the standard library. It skips a test when git is
// missing, and fails it under CI, which installs it.
package gittest

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// Date is the author and committer date of every commit Git makes, so
// that a repository made twice has the same object ids.
const Date = "2026-01-02T03:04:05Z"

// Git runs the real git binary in dir and returns its stdout. The system
// and user configuration are left out (HOME is dir), automatic gc is off,
// and the author, committer and their dates are fixed.
func Git(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") != "" {
			tb.Fatalf("git is not installed: apt-get install git")
		}
		tb.Skip("git is not installed")
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=gc.auto", "GIT_CONFIG_VALUE_0=0",
		"HOME="+dir, "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_AUTHOR_DATE="+Date, "GIT_COMMITTER_DATE="+Date)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("git %v: %v: %s", args, err, stderr.String())
	}
	return string(out)
}

// Write writes body at dir/rel (a slash-separated path), making the
// directories on the way.
func Write[B string | []byte](tb testing.TB, dir, rel string, body B) {
	tb.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// ObjectID is the id git gives an object of type typ holding body.
func ObjectID(typ string, body []byte) [20]byte {
	return sha1.Sum(append([]byte(Header(typ, body)), body...))
}

// Header is the true header of an object of type typ holding body.
func Header(typ string, body []byte) string {
	return typ + " " + strconv.Itoa(len(body)) + "\x00"
}

// Loose writes hdr and body, deflated, as the loose object id in the
// repository at dir (its .git), and returns id. A hostile test passes a
// header or an id that lies about body.
func Loose(tb testing.TB, dir string, id [20]byte, hdr string, body []byte) [20]byte {
	tb.Helper()
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	_, _ = zw.Write([]byte(hdr))
	_, _ = zw.Write(body)
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	h := hex.EncodeToString(id[:])
	Write(tb, dir, ".git/objects/"+h[:2]+"/"+h[2:], buf.Bytes())
	return id
}
