package sqliteprov

import (
	"fmt"
	"strings"
)

// tokKind is the kind of a SQL token.
type tokKind uint8

const (
	tokIdent  tokKind = iota // a bare word: a keyword or a name
	tokQuoted                // "x", [x] or `x`: always a name
	tokString                // 'x': a literal, which SQLite also takes as a name
	tokNumber
	tokPunct // one character: ( ) , . ; or an operator character
	tokBlob  // x'0a1b'
)

// token is one SQL token: its unquoted value and where it lies in the
// source (for quoting back defaults and types exactly as written).
type token struct {
	kind       tokKind
	val        string
	start, end int
}

// is reports whether t is the bare keyword kw (upper case).
func (t token) is(kw string) bool { return t.kind == tokIdent && strings.EqualFold(t.val, kw) }

// isPunct reports whether t is the punctuation character c.
func (t token) isPunct(c byte) bool { return t.kind == tokPunct && t.val[0] == c }

// isName reports whether t can name a column or table.
func (t token) isName() bool { return t.kind == tokIdent || t.kind == tokQuoted || t.kind == tokString }

// maxTokens bounds the work on one statement: the stored SQL is already
// bounded by the record size, this bounds the slice the lexer builds.
const maxTokens = 200_000

// lex splits SQL into tokens, dropping spaces and comments.
func lex(src string) ([]token, error) {
	var toks []token
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case c == '-' && strings.HasPrefix(src[i:], "--"):
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				j = len(src) - i
			}
			i += j
		case c == '/' && strings.HasPrefix(src[i:], "/*"):
			j := strings.Index(src[i+2:], "*/")
			if j < 0 {
				i = len(src) // SQLite ends an open comment at the end of input
			} else {
				i += j + 4
			}
		case c == '"' || c == '`' || c == '\'':
			val, n, err := lexQuoted(src[i:], c, c)
			if err != nil {
				return nil, err
			}
			kind := tokQuoted
			if c == '\'' {
				kind = tokString
			}
			toks = append(toks, token{kind: kind, val: val, start: i, end: i + n})
			i += n
		case c == '[':
			j := strings.IndexByte(src[i:], ']')
			if j < 0 {
				return nil, fmt.Errorf("unterminated [identifier] at byte %d", i)
			}
			toks = append(toks, token{kind: tokQuoted, val: src[i+1 : i+j], start: i, end: i + j + 1})
			i += j + 1
		case (c == 'x' || c == 'X') && i+1 < len(src) && src[i+1] == '\'':
			val, n, err := lexQuoted(src[i+1:], '\'', '\'')
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{kind: tokBlob, val: val, start: i, end: i + 1 + n})
			i += 1 + n
		case isWordByte(c) && !(c >= '0' && c <= '9'):
			j := i
			for j < len(src) && isWordByte(src[j]) {
				j++
			}
			toks = append(toks, token{kind: tokIdent, val: src[i:j], start: i, end: j})
			i = j
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
			j := i
			for j < len(src) && (isWordByte(src[j]) || src[j] == '.' ||
				(src[j] == '+' || src[j] == '-') && (src[j-1] == 'e' || src[j-1] == 'E')) {
				j++
			}
			toks = append(toks, token{kind: tokNumber, val: src[i:j], start: i, end: j})
			i = j
		default:
			toks = append(toks, token{kind: tokPunct, val: src[i : i+1], start: i, end: i + 1})
			i++
		}
		if len(toks) > maxTokens {
			return nil, fmt.Errorf("statement has more than %d tokens", maxTokens)
		}
	}
	return toks, nil
}

// lexQuoted reads a quoted token opened by open and closed by close, a
// doubled close standing for itself; it returns the value and the length.
func lexQuoted(s string, open, close byte) (string, int, error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] != close {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == close {
			b.WriteByte(close)
			i++
			continue
		}
		return b.String(), i + 1, nil
	}
	return "", 0, fmt.Errorf("unterminated %c...%c", open, close)
}

// isWordByte: letters, digits, _ and $, and every byte of a multi-byte
// UTF-8 character, as SQLite's tokenizer has it.
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$' || c >= 0x80
}
