package gitprov

import (
	"context"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"hash/fnv"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/git/gitobj"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

// A change cursor describes the refs themselves, so that any instance can
// answer: an 8-byte digest of every repository's refs, then for as many
// refs as fit in 1024 bytes of base64 (HEAD and branches first) a 4-byte
// hash of "REPO\x00REF" and the 20-byte commit. A ref that did not fit is
// reported conservatively (its summary resources as updated) whenever the
// digest changes.
const (
	maxCursor   = 1024
	entryBytes  = 24
	maxUpdated  = 1000
	digestBytes = 8
)

// snapRef is one ref of a snapshot.
type snapRef struct {
	repo  *repo
	name  string // full name; "HEAD" for HEAD
	short string // as URIs name it
	id    gitobj.ID
	key   uint32
	// keyName is what key hashes, name unless set: HEAD's includes the
	// branch it names.
	keyName string
}

// snapshot reads every repository's refs, HEAD first.
func (p *Provider) snapshot() ([]snapRef, [digestBytes]byte, error) {
	var out []snapRef
	h := sha1.New()
	for _, r := range p.repos {
		branch, id, err := r.git.Head()
		if err != nil && !isNotFound(err) {
			return nil, [digestBytes]byte{}, err
		}
		// An unborn HEAD is the zero commit: its first commit is a move.
		out = append(out, snapRef{repo: r, name: "HEAD", short: "HEAD", id: id, keyName: "HEAD\x00" + branch})
		h.Write([]byte(r.name + "\x00HEAD\x00" + branch + "\x00" + id.String() + "\n"))
		refs, err := r.git.Refs()
		if err != nil {
			return nil, [digestBytes]byte{}, err
		}
		var heads, rest []snapRef
		for _, ref := range refs {
			s := snapRef{repo: r, name: ref.Name, short: shortName(ref.Name), id: ref.ID}
			h.Write([]byte(r.name + "\x00" + ref.Name + "\x00" + ref.ID.String() + "\n"))
			if strings.HasPrefix(ref.Name, "refs/heads/") {
				heads = append(heads, s)
			} else {
				rest = append(rest, s)
			}
		}
		out = append(append(out, heads...), rest...)
	}
	for i := range out {
		f := fnv.New32a()
		kn := out[i].keyName
		if kn == "" {
			kn = out[i].name
		}
		f.Write([]byte(out[i].repo.name + "\x00" + kn))
		out[i].key = f.Sum32()
	}
	var d [digestBytes]byte
	copy(d[:], h.Sum(nil))
	return out, d, nil
}

func shortName(full string) string {
	for _, pre := range []string{"refs/heads/", "refs/tags/", "refs/remotes/"} {
		if s, ok := strings.CutPrefix(full, pre); ok {
			return s
		}
	}
	return full
}

func encodeCursor(refs []snapRef, d [digestBytes]byte) string {
	budget := base64.RawURLEncoding.DecodedLen(maxCursor)
	b := append([]byte{}, d[:]...)
	for _, r := range refs {
		if len(b)+entryBytes > budget {
			break
		}
		b = binary.BigEndian.AppendUint32(b, r.key)
		b = append(b, r.id[:]...)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(c string) (map[uint32]gitobj.ID, [digestBytes]byte, bool, error) {
	var d [digestBytes]byte
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(b) < digestBytes || (len(b)-digestBytes)%entryBytes != 0 {
		return nil, d, false, mcpw.InvalidParams("bad cursor")
	}
	copy(d[:], b)
	m := map[uint32]gitobj.ID{}
	full := len(b)+entryBytes > base64.RawURLEncoding.DecodedLen(maxCursor)
	for b = b[digestBytes:]; len(b) > 0; b = b[entryBytes:] {
		var id gitobj.ID
		copy(id[:], b[4:entryBytes])
		m[binary.BigEndian.Uint32(b)] = id
	}
	return m, d, full, nil
}

// Changes compares the refs with the cursor's: a ref that moved updates
// its summary resources (tree, log, commit, refs) and every file that
// differs between its old and new commit; the list changes when the
// default branch's files were added or removed, or HEAD names another
// branch.
func (p *Provider) Changes(ctx context.Context, req abi.ChangesRequest) (*abi.ChangesResult, error) {
	if err := p.setup(ctx); err != nil {
		return nil, err
	}
	now, digest, err := p.snapshot()
	if err != nil {
		return nil, classify(err)
	}
	res := &abi.ChangesResult{Cursor: encodeCursor(now, digest)}
	if req.Cursor == "" {
		return res, nil
	}
	old, oldDigest, truncated, err := decodeCursor(req.Cursor)
	if err != nil || oldDigest == digest {
		return res, err
	}
	u := &updates{seen: map[string]bool{}}
	current := map[uint32]bool{}
	for _, ref := range now {
		current[ref.key] = true
	}
	for key := range old {
		if !current[key] { // a ref was deleted (or HEAD names another branch)
			for _, r := range p.repos {
				u.add("git://" + r.name + "/refs")
			}
			break
		}
	}
	for _, ref := range now {
		prev, known := old[ref.key]
		r := ref.repo
		switch {
		case known && prev == ref.id:
			continue
		case !known && truncated:
			u.summary(ref) // it may have moved: the cursor could not say
			continue
		}
		u.summary(ref)
		u.add("git://" + r.name + "/refs")
		if !known {
			// A new ref; for HEAD (keyed by the branch it names), HEAD
			// now names another branch, whose name the list's URIs use.
			res.ListChanged = res.ListChanged || ref.name == "HEAD"
			continue
		}
		listed, err := p.movedFiles(ref, prev, u)
		if err != nil {
			mcpw.Logf(ctx, mcpw.LevelWarn, "changes of %s %s: %v", r.name, ref.name, err)
		}
		res.ListChanged = res.ListChanged || listed
	}
	res.Updated = u.uris
	return res, nil
}

// movedFiles adds the files that differ between prev and ref's commit, and
// says whether the default branch gained or lost files.
func (p *Provider) movedFiles(ref snapRef, prev gitobj.ID, u *updates) (bool, error) {
	r := ref.repo
	var oldTree gitobj.ID // none before a first commit
	if prev != (gitobj.ID{}) {
		oldC, err := r.git.Commit(prev)
		if err != nil {
			return false, err // gone (gc'd): the summary updates stand
		}
		oldTree = oldC.Tree
	}
	newC, err := r.git.Commit(ref.id)
	if err != nil {
		return false, err
	}
	changes, err := r.git.DiffTrees(oldTree, newC.Tree)
	if err != nil {
		return false, err
	}
	headShort, _, _ := headRef(r.git)
	isDefault := ref.name == "HEAD" || ref.short == headShort && strings.HasPrefix(ref.name, "refs/heads/")
	listed := false
	for _, c := range changes {
		u.add(refURI(r.name, kindBlob, ref.short, c.Path))
		listed = listed || isDefault && (c.Old.ID == (gitobj.ID{}) || c.New.ID == (gitobj.ID{}))
	}
	return listed, nil
}

// updates collects URIs once each, at most maxUpdated.
type updates struct {
	uris []string
	seen map[string]bool
}

func (u *updates) add(uri string) {
	if len(u.uris) < maxUpdated && !u.seen[uri] {
		u.seen[uri] = true
		u.uris = append(u.uris, uri)
	}
}

// summary adds the resources that describe a ref as a whole.
func (u *updates) summary(ref snapRef) {
	for _, k := range []string{kindTree, kindLog, kindCommit} {
		u.add(refURI(ref.repo.name, k, ref.short, ""))
	}
}
