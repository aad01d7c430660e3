package server

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// A skill's SKILL.md starts with YAML frontmatter (the Agent Skills
// specification, agentskills.io/specification): name and description are
// required, and the Skills extension (SEP-2640) hands the whole
// frontmatter to clients as a JSON object. The frontmatter comes from a
// provider, so it is untrusted: bounded, parsed strictly, and its name
// checked against the naming rules before anything is served from it.

// maxFrontmatter bounds the frontmatter of one SKILL.md. The Agent Skills
// fields (name 64, description 1024, compatibility 500, a small metadata
// map) fit many times over.
const maxFrontmatter = 64 << 10

// Limits of the Agent Skills specification on the two required fields.
const (
	maxSkillName        = 64
	maxSkillDescription = 1024
)

// errFrontmatter marks a SKILL.md whose frontmatter cannot be served.
var errFrontmatter = errors.New("invalid SKILL.md frontmatter")

// frontmatter is a parsed SKILL.md frontmatter: every field as written,
// and the two the extension requires.
type frontmatter struct {
	fields      map[string]any
	name        string
	description string
}

// parseFrontmatter reads the frontmatter at the start of a SKILL.md: a
// first line "---", the YAML, a line "---".
func parseFrontmatter(md []byte) (frontmatter, error) {
	md = bytes.TrimPrefix(md, []byte("\ufeff"))
	rest, ok := cutLine(md, "---")
	if !ok {
		return frontmatter{}, fmt.Errorf("%w: SKILL.md must begin with a line \"---\" opening its YAML frontmatter", errFrontmatter)
	}
	end := closingFence(rest)
	if end < 0 {
		return frontmatter{}, fmt.Errorf("%w: no closing \"---\" line within %d KiB", errFrontmatter, maxFrontmatter>>10)
	}
	var fields map[string]any
	if err := yaml.Unmarshal(rest[:end], &fields); err != nil {
		return frontmatter{}, fmt.Errorf("%w: %s", errFrontmatter, clip(err.Error()))
	}
	out, err := jsonable(fields, 0)
	if err != nil {
		return frontmatter{}, fmt.Errorf("%w: %w", errFrontmatter, err)
	}
	fm := frontmatter{fields: out.(map[string]any)}
	fm.name, _ = fm.fields["name"].(string)
	fm.description, _ = fm.fields["description"].(string)
	if err := checkSkillName(fm.name); err != nil {
		return frontmatter{}, fmt.Errorf("%w: name: %w", errFrontmatter, err)
	}
	if d := strings.TrimSpace(fm.description); d == "" || utf8.RuneCountInString(fm.description) > maxSkillDescription {
		return frontmatter{}, fmt.Errorf("%w: description must be a string of 1 to %d characters", errFrontmatter, maxSkillDescription)
	}
	return fm, nil
}

// cutLine removes a first line equal to want (with "\n" or "\r\n").
func cutLine(b []byte, want string) ([]byte, bool) {
	line, rest, ok := bytes.Cut(b, []byte("\n"))
	if !ok || string(bytes.TrimRight(line, "\r")) != want {
		return nil, false
	}
	return rest, true
}

// closingFence returns the offset of the line "---" that closes the
// frontmatter, looking no further than maxFrontmatter; -1 if none.
func closingFence(b []byte) int {
	for off := 0; off < len(b) && off <= maxFrontmatter; {
		line, _, _ := bytes.Cut(b[off:], []byte("\n"))
		if string(bytes.TrimRight(line, "\r")) == "---" {
			return off
		}
		off += len(line) + 1
	}
	return -1
}

// maxFrontmatterDepth bounds the nesting of frontmatter values.
const maxFrontmatterDepth = 16

// jsonable converts a decoded YAML value to one encoding/json renders as
// the same object: maps keyed by strings only, bounded depth.
func jsonable(v any, depth int) (any, error) {
	if depth > maxFrontmatterDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", maxFrontmatterDepth)
	}
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			c, err := jsonable(e, depth+1)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case map[any]any:
		return nil, errors.New("a mapping has a key that is not a string")
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			c, err := jsonable(e, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case nil:
		if depth == 0 {
			return nil, errors.New("the frontmatter is empty: give at least name and description")
		}
	}
	return v, nil
}

// checkSkillName applies the Agent Skills naming rules: 1 to 64 of
// lower-case letters, digits and hyphens, no hyphen first or last, no two
// in a row.
func checkSkillName(name string) error {
	switch {
	case name == "" || len(name) > maxSkillName:
		return fmt.Errorf("%q must be 1 to %d characters", clip(name), maxSkillName)
	case strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") || strings.Contains(name, "--"):
		return fmt.Errorf("%q may not start or end with a hyphen, nor have two in a row", name)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return fmt.Errorf("%q may hold only lower-case letters, digits and hyphens", name)
		}
	}
	return nil
}
