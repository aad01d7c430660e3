package abi

// Conflict is why two providers cannot be served side by side: they have
// one name, or their URI spaces overlap, so a URI (or a name in logs,
// metrics and list order) could not say which of them it means.
type Conflict struct {
	// A and B index the two providers, A < B.
	A, B int
	// SameName is set when both are named Name.
	SameName bool
	Name     string
	// RootA and RootB are overlapping roots of A's and B's URI spaces
	// (zero unless the spaces overlap).
	RootA, RootB URIRoot
}

// Overlap reports whether the conflict is about URI space.
func (c Conflict) Overlap() bool { return c.RootA.Scheme != "" }

// Conflicts returns every conflict among the providers described by ds, in
// the order of A then B: each pair with one name, and each pair whose URI
// spaces overlap (URIRoot.Overlaps, the first overlapping roots), a pair
// with both being reported twice. A set may be served only when it has
// none: a server checks it before serving, and a config reader to point at
// both lines.
func Conflicts(ds []Describe) []Conflict {
	var out []Conflict
	for i := range ds {
		for j := i + 1; j < len(ds); j++ {
			if ds[i].Name == ds[j].Name {
				out = append(out, Conflict{A: i, B: j, SameName: true, Name: ds[i].Name})
			}
			if ra, rb, ok := overlap(ds[i].URISpace, ds[j].URISpace); ok {
				out = append(out, Conflict{A: i, B: j, RootA: ra, RootB: rb})
			}
		}
	}
	return out
}

func overlap(a, b []URIRoot) (URIRoot, URIRoot, bool) {
	for _, ra := range a {
		for _, rb := range b {
			if ra.Overlaps(rb) {
				return ra, rb, true
			}
		}
	}
	return URIRoot{}, URIRoot{}, false
}
