package gitobj

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/guests/git/internal/gittest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

// packEntry is one entry a hostile pack holds: a whole object, an
// OFS_DELTA on entry ofs (an index into the entries), or a REF_DELTA on
// the object ref. size, when set, is the size the header claims.
type packEntry struct {
	id   ID
	typ  Type
	data []byte
	ofs  int
	ref  ID
	size int64
}

// writePack writes a pack and its version 2 index into dir's repository,
// as git lays them out, without git.
func writePack(t testing.TB, dir string, entries []packEntry) {
	t.Helper()
	var pack bytes.Buffer
	pack.WriteString("PACK")
	_ = binary.Write(&pack, binary.BigEndian, uint32(2))
	_ = binary.Write(&pack, binary.BigEndian, uint32(len(entries)))
	offsets := make([]int64, len(entries))
	for i, e := range entries {
		offsets[i] = int64(pack.Len())
		size := int64(len(e.data))
		if e.size != 0 {
			size = e.size
		}
		c := byte(e.typ)<<4 | byte(size&15)
		size >>= 4
		for size > 0 {
			pack.WriteByte(c | 0x80)
			c, size = byte(size&0x7f), size>>7
		}
		pack.WriteByte(c)
		switch e.typ {
		case typeOfs:
			d := offsets[i] - offsets[e.ofs]
			var enc []byte
			enc = append(enc, byte(d&0x7f))
			for d >>= 7; d > 0; d >>= 7 {
				d--
				enc = append([]byte{byte(0x80 | d&0x7f)}, enc...)
			}
			pack.Write(enc)
		case typeRef:
			pack.Write(e.ref[:])
		}
		zw := zlib.NewWriter(&pack)
		_, _ = zw.Write(e.data)
		require.NoError(t, zw.Close())
	}
	sum := sha1.Sum(pack.Bytes())
	pack.Write(sum[:])

	order := make([]int, len(entries))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return bytes.Compare(entries[order[a]].id[:], entries[order[b]].id[:]) < 0 })
	var idx bytes.Buffer
	idx.WriteString("\xfftOc")
	_ = binary.Write(&idx, binary.BigEndian, uint32(2))
	for b := range 256 {
		n := 0
		for _, e := range entries {
			if int(e.id[0]) <= b {
				n++
			}
		}
		_ = binary.Write(&idx, binary.BigEndian, uint32(n))
	}
	for _, i := range order {
		idx.Write(entries[i].id[:])
	}
	for range order {
		_ = binary.Write(&idx, binary.BigEndian, uint32(0)) // crc, unchecked
	}
	for _, i := range order {
		_ = binary.Write(&idx, binary.BigEndian, uint32(offsets[i]))
	}
	idx.Write(sum[:])
	idx.Write(make([]byte, 20))
	name := "pack-" + sum2hex(sum)
	gittest.Write(t, dir, ".git/objects/pack/"+name+".pack", pack.Bytes())
	gittest.Write(t, dir, ".git/objects/pack/"+name+".idx", idx.Bytes())
}

func sum2hex(s [20]byte) string { return ID(s).String() }

func fakeID(i int) ID { return ID(sha1.Sum([]byte("fake " + strconv.Itoa(i)))) }

// copyAll is a delta that copies all of a base of n bytes (n ≤ 65535)
// and declares the sizes given.
func copyAll(n int, declared int64) []byte {
	d := appendVarint(nil, int64(n))
	d = appendVarint(d, declared)
	return append(d, 0x80|0x01|0x10|0x20, 0, byte(n), byte(n>>8))
}

func appendVarint(b []byte, v int64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// requireBounded runs f, which must fail with kind well within seconds: a
// hostile repository costs an error, never a hang.
func requireBounded(t *testing.T, kind error, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		require.ErrorIs(t, err, kind)
		return err
	case <-time.After(testkit.Wait):
		t.Fatal("a hostile repository did not end in an error within testkit.Wait")
		return nil
	}
}

// TestHostileDeltaChains: a chain one longer than the cap, a REF_DELTA
// whose base is itself, and two that are each other's base, all end in
// ErrLimit; a chain at the cap reads.
func TestHostileDeltaChains(t *testing.T) {
	base := []byte("base object")
	chain := func(n int) []packEntry {
		es := []packEntry{{id: fakeID(0), typ: TypeBlob, data: base}}
		for i := 1; i <= n; i++ {
			es = append(es, packEntry{id: fakeID(i), typ: typeOfs, ofs: i - 1, data: copyAll(len(base), int64(len(base)))})
		}
		return es
	}
	t.Run("at the cap", func(t *testing.T) {
		dir := emptyRepo(t)
		writePack(t, dir, chain(DefaultMaxDeltaDepth))
		obj, err := openDir(t, dir, Limits{}).Read(fakeID(DefaultMaxDeltaDepth))
		require.NoError(t, err)
		require.Equal(t, base, obj.Data)
	})
	t.Run("over the cap", func(t *testing.T) {
		dir := emptyRepo(t)
		writePack(t, dir, chain(DefaultMaxDeltaDepth+1))
		err := requireBounded(t, ErrLimit, func() error { _, err := openDir(t, dir, Limits{}).Read(fakeID(DefaultMaxDeltaDepth + 1)); return err })
		require.ErrorContains(t, err, "raise max_delta_depth")
	})
	t.Run("self base", func(t *testing.T) {
		dir := emptyRepo(t)
		writePack(t, dir, []packEntry{{id: fakeID(1), typ: typeRef, ref: fakeID(1), data: copyAll(1, 1)}})
		requireBounded(t, ErrLimit, func() error { _, err := openDir(t, dir, Limits{}).Read(fakeID(1)); return err })
	})
	t.Run("base loop", func(t *testing.T) {
		dir := emptyRepo(t)
		writePack(t, dir, []packEntry{
			{id: fakeID(1), typ: typeRef, ref: fakeID(2), data: copyAll(1, 1)},
			{id: fakeID(2), typ: typeRef, ref: fakeID(1), data: copyAll(1, 1)},
		})
		requireBounded(t, ErrLimit, func() error { _, err := openDir(t, dir, Limits{}).Read(fakeID(2)); return err })
	})
}

// TestHostileZipBombs: objects whose inflated size is more than the
// header says, whose header claims more than the cap, and deltas whose
// result claims more than the cap, each refused before the bytes are
// held; a lie about the size in the other direction is corruption.
func TestHostileZipBombs(t *testing.T) {
	bomb := bytes.Repeat([]byte{0}, DefaultMaxObjectBytes+1<<20) // over the cap; deflates to ~17 KiB
	t.Run("loose inflates past its header", func(t *testing.T) {
		dir := emptyRepo(t)
		id := looseObject(t, dir, "blob", bomb, "blob 100\x00")
		requireBounded(t, ErrCorrupt, func() error { _, err := openDir(t, dir, Limits{}).Read(id); return err })
	})
	t.Run("loose header over the cap", func(t *testing.T) {
		dir := emptyRepo(t)
		id := looseObject(t, dir, "blob", bomb, "")
		err := requireBounded(t, ErrLimit, func() error { _, err := openDir(t, dir, Limits{}).Read(id); return err })
		require.ErrorContains(t, err, "raise max_object_bytes")
	})
	t.Run("loose header says less than it has", func(t *testing.T) {
		dir := emptyRepo(t)
		id := looseObject(t, dir, "blob", []byte("short"), "blob 1000\x00")
		requireBounded(t, ErrCorrupt, func() error { _, err := openDir(t, dir, Limits{}).Read(id); return err })
	})
	t.Run("packed inflates past its header", func(t *testing.T) {
		dir := emptyRepo(t)
		writePack(t, dir, []packEntry{{id: fakeID(1), typ: TypeBlob, data: bomb, size: 10}})
		requireBounded(t, ErrCorrupt, func() error { _, err := openDir(t, dir, Limits{}).Read(fakeID(1)); return err })
	})
	t.Run("packed header over the cap", func(t *testing.T) {
		dir := emptyRepo(t)
		writePack(t, dir, []packEntry{{id: fakeID(1), typ: TypeBlob, data: []byte("x"), size: 1 << 40}})
		requireBounded(t, ErrLimit, func() error { _, err := openDir(t, dir, Limits{}).Read(fakeID(1)); return err })
	})
	t.Run("delta result over the cap", func(t *testing.T) {
		dir := emptyRepo(t)
		writePack(t, dir, []packEntry{
			{id: fakeID(0), typ: TypeBlob, data: []byte("b")},
			{id: fakeID(1), typ: typeOfs, ofs: 0, data: copyAll(1, 1<<40)},
		})
		requireBounded(t, ErrLimit, func() error { _, err := openDir(t, dir, Limits{}).Read(fakeID(1)); return err })
	})
	t.Run("delta copies past its base", func(t *testing.T) {
		dir := emptyRepo(t)
		writePack(t, dir, []packEntry{
			{id: fakeID(0), typ: TypeBlob, data: []byte("b")},
			{id: fakeID(1), typ: typeOfs, ofs: 0, data: append(appendVarint(appendVarint(nil, 1), 100), 0x80|0x10, 100)},
		})
		requireBounded(t, ErrCorrupt, func() error { _, err := openDir(t, dir, Limits{}).Read(fakeID(1)); return err })
	})
}

// TestHostileTrees: a tree that contains itself (the reader does not hash
// what it reads, so a loose file can say anything), a DAG of trees that
// names each level twice (2^40 paths in 40 objects), and a tree with more
// entries than the cap: each an error, quickly.
func TestHostileTrees(t *testing.T) {
	t.Run("cycle", func(t *testing.T) {
		dir := emptyRepo(t)
		self := ID(sha1.Sum([]byte("self")))
		h := self.String()
		var buf bytes.Buffer
		zw := zlib.NewWriter(&buf)
		body := append(treeEntry("100644", "f", fakeID(9)), treeEntry("40000", "loop", self)...)
		_, _ = zw.Write(append([]byte("tree "+strconv.Itoa(len(body))+"\x00"), body...))
		require.NoError(t, zw.Close())
		gittest.Write(t, dir, ".git/objects/"+h[:2]+"/"+h[2:], buf.Bytes())
		err := requireBounded(t, ErrCorrupt, func() error { _, err := openDir(t, dir, Limits{}).Walk(self, ""); return err })
		require.ErrorContains(t, err, "contains itself")
	})
	t.Run("dag", func(t *testing.T) {
		dir := emptyRepo(t)
		leaf := looseObject(t, dir, "blob", []byte("x"), "")
		cur := looseObject(t, dir, "tree", treeEntry("100644", "f", leaf), "")
		for range 40 {
			cur = looseObject(t, dir, "tree", append(treeEntry("40000", "a", cur), treeEntry("40000", "b", cur)...), "")
		}
		requireBounded(t, ErrLimit, func() error { _, err := openDir(t, dir, Limits{}).Walk(cur, ""); return err })
		_, err := openDir(t, dir, Limits{}).DiffTrees(ID{}, cur)
		require.ErrorIs(t, err, ErrLimit)
	})
	t.Run("huge", func(t *testing.T) {
		dir := emptyRepo(t)
		var body []byte
		for i := range 2000 {
			body = append(body, treeEntry("100644", "f"+strconv.Itoa(100000+i), fakeID(i))...)
		}
		id := looseObject(t, dir, "tree", body, "")
		r := openDir(t, dir, Limits{MaxTreeEntries: 1000})
		err := requireBounded(t, ErrLimit, func() error { _, err := r.Tree(id); return err })
		require.ErrorContains(t, err, "raise max_tree_entries")
		_, err = openDir(t, dir, Limits{}).Tree(id)
		require.NoError(t, err, "under the default cap")
	})
	t.Run("bad entries", func(t *testing.T) {
		dir := emptyRepo(t)
		for _, body := range [][]byte{
			treeEntry("100644", "..", fakeID(1)), treeEntry("100644", "a/b", fakeID(1)),
			treeEntry("9x", "a", fakeID(1)), []byte("100644 a\x00short"),
		} {
			id := looseObject(t, dir, "tree", body, "")
			_, err := openDir(t, dir, Limits{}).Tree(id)
			require.ErrorIs(t, err, ErrCorrupt, "%q", body)
		}
	})
}

// TestHostileHistory: commits that are their own parent, or each other's,
// end the log; symbolic refs that loop end in ErrLimit.
func TestHostileHistory(t *testing.T) {
	dir := emptyRepo(t)
	tree := looseObject(t, dir, "tree", nil, "")
	a, b := ID(sha1.Sum([]byte("a"))), ID(sha1.Sum([]byte("b")))
	commit := func(id, parent ID) {
		body := "tree " + tree.String() + "\nparent " + parent.String() + "\nauthor X <x> 1 +0000\ncommitter X <x> 1 +0000\n\nloop\n"
		var buf bytes.Buffer
		zw := zlib.NewWriter(&buf)
		_, _ = zw.Write([]byte("commit " + strconv.Itoa(len(body)) + "\x00" + body))
		require.NoError(t, zw.Close())
		h := id.String()
		gittest.Write(t, dir, ".git/objects/"+h[:2]+"/"+h[2:], buf.Bytes())
	}
	commit(a, b)
	commit(b, a)
	r := openDir(t, dir, Limits{})
	var log []LogEntry
	requireBounded(t, nil, func() error { var err error; log, err = r.Log(a, 1000); return err })
	require.Len(t, log, 2)

	gittest.Write(t, dir, ".git/refs/heads/main", []byte("ref: refs/heads/other\n"))
	gittest.Write(t, dir, ".git/refs/heads/other", []byte("ref: refs/heads/main\n"))
	requireBounded(t, ErrLimit, func() error { _, _, err := r.Head(); return err })
	gittest.Write(t, dir, ".git/refs/heads/bad", []byte("ref: ../../../etc/passwd\n"))
	_, err := r.Resolve("bad")
	require.ErrorIs(t, err, ErrCorrupt)
}

// TestWorktreesAndShallow: a linked worktree reads when its git directory
// is inside the grant and is refused, with the fix, when it is not; a
// shallow clone reads what it has and says where history stops.
func TestWorktreesAndShallow(t *testing.T) {
	dir := sampleRepo(t)
	wt := filepath.Join(dir, "wt")
	gittest.Git(t, dir, "worktree", "add", "-q", wt, "side")

	// Granting the main repository: the worktree inside it reads.
	r, err := Open(os.DirFS(dir), filepath.ToSlash(dir), "wt", Limits{})
	require.NoError(t, err)
	head, err := r.Resolve("HEAD")
	require.NoError(t, err)
	require.Equal(t, strings.TrimSpace(gittest.Git(t, wt, "rev-parse", "HEAD")), head.String())
	branch, _, err := r.Head()
	require.NoError(t, err)
	require.Equal(t, "refs/heads/side", branch)

	// Granting only the worktree: its git directory is outside.
	_, err = Open(os.DirFS(wt), filepath.ToSlash(wt), ".", Limits{})
	require.ErrorIs(t, err, ErrNotRepo)
	require.ErrorContains(t, err, "grant the directory that holds it")

	shallow := filepath.Join(t.TempDir(), "shallow")
	gittest.Git(t, dir, "clone", "-q", "--depth", "2", "file://"+dir, shallow)
	sr := openDir(t, shallow, Limits{})
	tip, err := sr.Resolve("HEAD")
	require.NoError(t, err)
	log, err := sr.Log(tip, 100)
	require.NoError(t, err)
	require.Len(t, log, 3, "two commits, then the missing parent")
	require.Nil(t, log[2].Commit)
	require.NotEqual(t, ID{}, log[2].Missing)
	_, err = sr.Commit(log[2].Missing)
	require.ErrorIs(t, err, ErrNotFound)
	require.ErrorContains(t, err, "shallow clone")
	checkAgainstGit(t, shallow, sr)
}

// TestUnsupportedLayouts: a SHA-256 repository is refused at open, and an
// object missing from a repository that borrows objects says why.
func TestUnsupportedLayouts(t *testing.T) {
	dir := emptyRepo(t)
	gittest.Write(t, dir, ".git/config", []byte("[extensions]\n\tobjectFormat = sha256\n"))
	_, err := Open(os.DirFS(dir), dir, ".", Limits{})
	require.ErrorIs(t, err, ErrNotRepo)
	require.ErrorContains(t, err, "SHA-256")

	dir = emptyRepo(t)
	gittest.Write(t, dir, ".git/objects/info/alternates", []byte("/elsewhere/objects\n"))
	_, err = openDir(t, dir, Limits{}).Read(fakeID(1))
	require.ErrorIs(t, err, ErrNotFound)
	require.ErrorContains(t, err, "alternates")
}
