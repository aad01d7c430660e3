/*
 * cfiles - the files provider in C, the built-in default provider of
 * mcp-wasm (`builtin://files`).
 *
 * It behaves exactly as the Go files provider (guests/files, package
 * filesprov, whose package comment is the specification): the regular
 * files of every directory the host preopens, named by their real file://
 * URIs; list, read, one template per root with path completion, and
 * changes. The differential test in this directory holds the two to the
 * same answers, errors included.
 *
 * It speaks WASI preview 1 directly (path_open, path_filestat_get,
 * fd_readdir, ...), not through libc's path layer: one host call per
 * question, no stat per directory entry, and timestamps as the host gives
 * them. Read contents go to the host as they are (content_write).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wasi/api.h>

#include "mcpw.h"

#define PAGE_SIZE 500
#define MAX_CURSOR 1024
#define MAX_ESCAPED_PATH (MAX_CURSOR - 2) /* "p:" + escaped path */
#define MAX_TEXT 4096
#define MAX_LIST_ITEMS 1000
#define MAX_COMPLETIONS 100
#define MAX_SKIP_LINES 16
#define DEFAULT_MAX_FILE_BYTES (1 << 20)
#define CACHE_TTL_MS 1000

/* ---- small strings ---- */

static char *dupn(const char *s, size_t n) {
	char *d = malloc(n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = 0;
	}
	return d;
}

/* join returns dir/name ("." joins as nothing), malloc'd. */
static char *join(const char *dir, const char *name) {
	size_t dl = strlen(dir), nl = strlen(name);
	if (dl == 1 && dir[0] == '.')
		return dupn(name, nl);
	char *p = malloc(dl + 1 + nl + 1);
	if (!p)
		return NULL;
	memcpy(p, dir, dl);
	p[dl] = '/';
	memcpy(p + dl + 1, name, nl + 1);
	return p;
}

/* cmpn compares byte strings as Go compares strings. */
static int cmpn(const char *a, size_t an, const char *b, size_t bn) {
	int c = memcmp(a, b, an < bn ? an : bn);
	if (c)
		return c;
	return an < bn ? -1 : an > bn;
}

static int has_prefix(const char *s, size_t n, const char *prefix) {
	size_t pl = strlen(prefix);
	return n >= pl && memcmp(s, prefix, pl) == 0;
}

/* ---- UTF-8, as Go's utf8.Valid (the SDK's, 32 ASCII bytes per step) ---- */

static int utf8_valid(const char *s, size_t n) { return mcpw_utf8_valid(s, n); }

/* ---- escaping, as Go's url.PathEscape and url.PathUnescape ---- */

static int path_safe(unsigned char c) {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
	       c == '.' || c == '~' || c == '$' || c == '&' || c == '+' || c == ':' || c == '=' || c == '@';
}

/* escaped_len is the length of s escaped segment by segment ('/' kept). */
static size_t escaped_len(const char *s) {
	size_t n = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		n += (*p == '/' || path_safe(*p)) ? 1 : 3;
	return n;
}

/* escape_path appends s escaped segment by segment ('/' kept). */
static void escape_path(mcpw_buf *b, const char *s) {
	static const char hex[] = "0123456789ABCDEF";
	const char *run = s;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '/' || path_safe(*p))
			continue;
		mcpw_buf_append(b, run, (const char *)p - run);
		char e[3] = {'%', hex[*p >> 4], hex[*p & 15]};
		mcpw_buf_append(b, e, 3);
		run = (const char *)p + 1;
	}
	mcpw_buf_append(b, run, strlen(run));
}

static int unhex(char c) {
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Messages of unescape_path, as the Go provider's. */
static const char *unescape_error;
static char unescape_msg[96];

/* unescape_path decodes an escaped relative path (segments joined by '/')
 * into a malloc'd string, or returns NULL with unescape_error set: empty,
 * backslash or NUL, encoded separator, bad escape, empty/./.. segment, not
 * UTF-8. NULL with unescape_error NULL means memory ran out. */
static char *unescape_path(const char *s, size_t n) {
	unescape_error = NULL;
	if (n == 0) {
		unescape_error = "empty path";
		return NULL;
	}
	if (memchr(s, '\\', n) || memchr(s, 0, n)) {
		unescape_error = "path contains a backslash or NUL";
		return NULL;
	}
	static const char *bad[] = {"%2F", "%5C", "%00"};
	int escapes = memchr(s, '%', n) != NULL; /* most paths have none */
	for (int k = 0; escapes && k < 3; k++)
		for (size_t i = 0; i + 3 <= n; i++)
			if (s[i] == '%' && (s[i + 1] | 0x20) == (bad[k][1] | 0x20) && (s[i + 2] | 0x20) == (bad[k][2] | 0x20)) {
				strcpy(unescape_msg, "path contains an encoded separator or NUL (");
				strcat(unescape_msg, bad[k]);
				strcat(unescape_msg, ")");
				unescape_error = unescape_msg;
				return NULL;
			}
	char *out = malloc(n + 1);
	if (!out)
		return NULL;
	size_t o = 0, seg_start = 0, seg = 1;
	for (size_t i = 0; i <= n; i++) {
		if (i == n || s[i] == '/') {
			/* a segment s[seg_start..i) decoded into out[o0..o) */
			size_t o0 = o;
			for (size_t j = seg_start; j < i; j++) {
				if (s[j] != '%') {
					out[o++] = s[j];
					continue;
				}
				if (j + 2 >= i || unhex(s[j + 1]) < 0 || unhex(s[j + 2]) < 0) {
					/* Go checks escapes segment by segment, in order. */
					mcpw_buf b = MCPW_BUF_INIT;
					free(out);
					mcpw_buf_printf(&b, "path segment %zu has a bad escape", seg);
					strncpy(unescape_msg, b.data ? b.data : "", sizeof unescape_msg - 1);
					mcpw_buf_free(&b);
					unescape_error = unescape_msg;
					return NULL;
				}
				out[o++] = (char)(unhex(s[j + 1]) << 4 | unhex(s[j + 2]));
				j += 2;
			}
			size_t l = o - o0;
			if (l == 0 || (l == 1 && out[o0] == '.') || (l == 2 && out[o0] == '.' && out[o0 + 1] == '.')) {
				free(out);
				unescape_error = "path has an empty, '.' or '..' segment";
				return NULL;
			}
			if (i < n)
				out[o++] = '/';
			seg_start = i + 1;
			seg++;
		}
	}
	out[o] = 0;
	if (!utf8_valid(out, o)) {
		free(out);
		unescape_error = "path is not valid UTF-8";
		return NULL;
	}
	return out;
}

/* clean_abs is Go's path.Clean of an absolute path, in place. */
static void clean_abs(char *path) {
	size_t n = strlen(path), r = 1, w = 1, dotdot = 1;
	while (r < n) {
		if (path[r] == '/') {
			r++;
		} else if (path[r] == '.' && (r + 1 == n || path[r + 1] == '/')) {
			r++;
		} else if (path[r] == '.' && path[r + 1] == '.' && (r + 2 == n || path[r + 2] == '/')) {
			r += 2;
			if (w > dotdot) {
				w--;
				while (w > dotdot && path[w] != '/')
					w--;
			}
		} else {
			if (w != 1)
				path[w++] = '/';
			while (r < n && path[r] != '/')
				path[w++] = path[r++];
		}
	}
	path[w] = 0;
}

/* ---- configuration (fixed for the life of the provider: read once) ---- */

static int cfg_read;
static int show_hidden;
static int64_t max_bytes;
static int max_bytes_bad;

static void trim_ascii(char **s, size_t *n) {
	while (*n && (**s == ' ' || **s == '\t' || **s == '\r' || **s == '\n'))
		(*s)++, (*n)--;
	while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t' || (*s)[*n - 1] == '\r' || (*s)[*n - 1] == '\n'))
		(*n)--;
}

/* config_value reads key into a malloc'd buffer; NULL if not granted. */
static char *config_value(const char *key, size_t *len) {
	char small[64];
	int32_t n = mcpw_config_get(key, small, sizeof small);
	if (n < 0)
		return NULL;
	char *v = malloc((size_t)n + 1);
	if (!v)
		return NULL;
	if ((size_t)n < sizeof small)
		memcpy(v, small, (size_t)n + 1);
	else if (mcpw_config_get(key, v, (size_t)n + 1) != n) {
		free(v);
		return NULL;
	}
	*len = (size_t)n;
	return v;
}

/* parse_int64 is strconv.ParseInt(s, 10, 64) accepting; 0 on error. */
static int parse_int64(const char *s, size_t n, int64_t *out) {
	size_t i = 0;
	int neg = 0;
	if (i < n && (s[i] == '+' || s[i] == '-'))
		neg = s[i++] == '-';
	if (i == n)
		return 0;
	uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		uint64_t d = (uint64_t)(s[i] - '0');
		if (v > (lim - d) / 10)
			return 0;
		v = v * 10 + d;
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 1;
}

static void read_config(void) {
	if (cfg_read)
		return;
	cfg_read = 1;
	size_t n;
	char *v = config_value("show_hidden", &n);
	if (v) {
		char *s = v;
		trim_ascii(&s, &n);
		show_hidden = n == 4 && (s[0] | 0x20) == 't' && (s[1] | 0x20) == 'r' && (s[2] | 0x20) == 'u' && (s[3] | 0x20) == 'e';
		free(v);
	}
	max_bytes = DEFAULT_MAX_FILE_BYTES;
	v = config_value("max_file_bytes", &n);
	if (v) {
		char *s = v;
		trim_ascii(&s, &n);
		if (n) {
			int64_t x;
			if (!parse_int64(s, n, &x) || x <= 0)
				max_bytes_bad = 1;
			else
				max_bytes = x;
		}
		free(v);
	}
}

static int visible(const char *name) { return show_hidden || name[0] != '.'; }

static int visible_path(const char *rel) {
	if (show_hidden)
		return 1;
	for (const char *p = rel; *p;) {
		if (*p == '.')
			return 0;
		const char *slash = strchr(p, '/');
		if (!slash)
			break;
		p = slash + 1;
	}
	return 1;
}

/* ---- errors and logs ---- */

/* fail sends an error whose message is cut to MAX_TEXT bytes at a rune
 * boundary, as the Go SDK cuts it. */
static int32_t fail(const char *code, mcpw_buf *msg) {
	if (msg->failed || !msg->data) {
		mcpw_buf_free(msg);
		return mcpw_error(MCPW_INTERNAL, "provider ran out of memory");
	}
	if (msg->len > MAX_TEXT) {
		size_t cut = MAX_TEXT;
		while (cut > 0 && ((unsigned char)msg->data[cut] & 0xC0) == 0x80)
			cut--;
		msg->data[cut] = 0;
	}
	int32_t rc = mcpw_error(code, msg->data);
	mcpw_buf_free(msg);
	return rc;
}

#define FAILF(code, ...)                                                                                               \
	do {                                                                                                           \
		mcpw_buf m_ = MCPW_BUF_INIT;                                                                           \
		mcpw_buf_printf(&m_, __VA_ARGS__);                                                                     \
		return fail(code, &m_);                                                                                \
	} while (0)

/* An operation's own failure, to answer with (code NULL: none). */
typedef struct {
	const char *code;
	mcpw_buf msg;
} problem;

#define SETF(pr, c, ...)                                                                                               \
	do {                                                                                                           \
		(pr)->code = (c);                                                                                      \
		mcpw_buf_printf(&(pr)->msg, __VA_ARGS__);                                                              \
	} while (0)

static int32_t answer(problem *pr) { return fail(pr->code, &pr->msg); }

static int skip_lines;

static const char *errno_text(__wasi_errno_t e) {
	switch (e) {
	case __WASI_ERRNO_PERM:
		return "operation not permitted";
	case __WASI_ERRNO_ACCES:
		return "permission denied";
	case __WASI_ERRNO_NOENT:
		return "no such file or directory";
	case __WASI_ERRNO_IO:
		return "I/O error";
	case __WASI_ERRNO_NOTDIR:
		return "not a directory";
	case __WASI_ERRNO_LOOP:
		return "too many levels of symbolic links";
	case __WASI_ERRNO_NAMETOOLONG:
		return "file name too long";
	case __WASI_ERRNO_BADF:
		return "bad file number";
	}
	return "error";
}

#define SKIP(level, ...)                                                                                               \
	do {                                                                                                           \
		if (++skip_lines <= MAX_SKIP_LINES)                                                                    \
			mcpw_log(level, __VA_ARGS__);                                                                  \
	} while (0)

static void skip_done(void) {
	if (skip_lines > MAX_SKIP_LINES)
		mcpw_log(MCPW_INFO, "skipped %d more entries that are not regular files or could not be read", skip_lines - MAX_SKIP_LINES);
	skip_lines = 0;
}

static const char *kind_of(uint8_t t) {
	switch (t) {
	case __WASI_FILETYPE_BLOCK_DEVICE:
		return "block device";
	case __WASI_FILETYPE_CHARACTER_DEVICE:
		return "character device";
	case __WASI_FILETYPE_SOCKET_DGRAM:
	case __WASI_FILETYPE_SOCKET_STREAM:
		return "socket";
	case __WASI_FILETYPE_SYMBOLIC_LINK:
		return "symbolic link";
	case __WASI_FILETYPE_DIRECTORY:
		return "directory";
	case __WASI_FILETYPE_REGULAR_FILE:
		return "regular file";
	}
	return "special file";
}

/* ---- roots ---- */

typedef struct {
	char *path; /* guest path, absolute and clean */
	char *esc;  /* escaped path, "" for "/" */
	int fd;     /* the preopen */
} root;

static root *roots;
static size_t nroots;
static char **skipped;
static size_t nskipped;
static int roots_found;

static void add_skipped(char *p) {
	char **s = realloc(skipped, (nskipped + 1) * sizeof *s);
	if (!s) {
		free(p);
		return;
	}
	skipped = s;
	skipped[nskipped++] = p;
}

/* find_roots asks the host for its preopens, once per instance (they do
 * not change), and keeps the ones that can name files, sorted. */
static void find_roots(void) {
	if (roots_found)
		return;
	roots_found = 1;
	for (__wasi_fd_t fd = 3; fd < 3 + 4096; fd++) {
		__wasi_prestat_t ps;
		if (__wasi_fd_prestat_get(fd, &ps) != 0)
			break;
		if (ps.tag != __WASI_PREOPENTYPE_DIR || ps.u.dir.pr_name_len == 0 || ps.u.dir.pr_name_len > 1 << 16)
			continue;
		size_t n = ps.u.dir.pr_name_len;
		char *name = malloc(n + 1);
		if (!name)
			continue;
		if (__wasi_fd_prestat_dir_name(fd, (uint8_t *)name, n) != 0) {
			free(name);
			continue;
		}
		name[n] = 0;
		char *clean = dupn(name, n);
		if (clean && name[0] == '/')
			clean_abs(clean);
		int ok = clean && strlen(name) == n && name[0] == '/' && strcmp(clean, name) == 0 && utf8_valid(name, n) &&
			 !strchr(name, '\\');
		free(clean);
		size_t elen = strcmp(name, "/") == 0 ? 1 : escaped_len(name);
		if (!ok || elen >= MAX_ESCAPED_PATH) {
			add_skipped(name);
			continue;
		}
		mcpw_buf esc = MCPW_BUF_INIT;
		if (strcmp(name, "/") != 0)
			escape_path(&esc, name);
		mcpw_buf_append(&esc, "", 0);
		root *rs = realloc(roots, (nroots + 1) * sizeof *rs);
		if (!rs || esc.failed) {
			free(name);
			mcpw_buf_free(&esc);
			continue;
		}
		roots = rs;
		/* Insert in order (stable: an equal path stays after the first,
		 * and is dropped). */
		size_t at = nroots;
		while (at > 0 && strcmp(roots[at - 1].path, name) > 0)
			at--;
		if (at > 0 && strcmp(roots[at - 1].path, name) == 0) {
			free(name);
			mcpw_buf_free(&esc);
			continue;
		}
		memmove(roots + at + 1, roots + at, (nroots - at) * sizeof *roots);
		roots[at] = (root){name, esc.data ? esc.data : dupn("", 0), (int)fd};
		nroots++;
	}
}

/* full_path is the guest path of rel in r, malloc'd. */
static char *full_path(const root *r, const char *rel) {
	if (strcmp(rel, ".") == 0)
		return dupn(r->path, strlen(r->path));
	if (strcmp(r->path, "/") == 0) {
		size_t n = strlen(rel);
		char *p = malloc(n + 2);
		if (p) {
			p[0] = '/';
			memcpy(p + 1, rel, n + 1);
		}
		return p;
	}
	return join(r->path, rel);
}

/* esc_full_len is the length of the escaped guest path of rel. */
static size_t esc_full_len(const root *r, const char *rel) { return strlen(r->esc) + 1 + escaped_len(rel); }

/* out_uri appends the quoted file:// URI of rel in r. */
static void buf_uri(mcpw_buf *b, const root *r, const char *rel) {
	mcpw_buf_append(b, "file://", 7);
	mcpw_buf_append(b, r->esc, strlen(r->esc));
	mcpw_buf_append(b, "/", 1);
	escape_path(b, rel);
}

/* root_of finds the root a clean absolute guest path lies in (the longest)
 * and the path below it ("." for the root), pointing into full. */
static root *root_of(const char *full, const char **rel) {
	root *best = NULL;
	size_t fl = strlen(full);
	for (size_t i = 0; i < nroots; i++) {
		root *r = &roots[i];
		size_t pl = strlen(r->path);
		const char *rest;
		if (strcmp(full, r->path) == 0)
			rest = ".";
		else if (pl == 1)
			rest = full + 1;
		else if (fl > pl && memcmp(full, r->path, pl) == 0 && full[pl] == '/')
			rest = full + pl + 1;
		else
			continue;
		if (!best || pl > strlen(best->path))
			best = r, *rel = rest;
	}
	return best;
}

static int32_t no_roots(void) {
	return mcpw_error(MCPW_INTERNAL, "no directory is granted to the files provider: grant one (serve --allow-dir DIR, or grants.dirs in a config file)");
}

/* begin starts a call: it reads the input and its string member key (*val,
 * malloc'd, NULL when absent) and finds the granted directories. It returns
 * MCPW_OK, or the answer the call must return (having freed *val). When in
 * is not NULL the caller keeps the whole input there, *n its length, to
 * free. */
static int32_t begin(int32_t in_len, const char *key, char **val, size_t *vn, char **in, size_t *n) {
	size_t len;
	*val = NULL;
	*vn = 0;
	char *input = mcpw_input(in_len, &len);
	if (!input)
		return mcpw_error(MCPW_INTERNAL, "cannot read the call's input");
	*val = mcpw_json_string(input, len, key, vn);
	find_roots();
	if (nroots == 0) {
		free(input);
		free(*val);
		*val = NULL;
		return no_roots();
	}
	if (in)
		*in = input, *n = len;
	else
		free(input);
	return MCPW_OK;
}

/* ---- the host's file system ---- */

static __wasi_errno_t lstat_at(const root *r, const char *rel, __wasi_filestat_t *st) {
	return __wasi_path_filestat_get((__wasi_fd_t)r->fd, 0, rel, st);
}

/* A directory's entries, sorted by name. key is the name's first eight
 * bytes, big-endian and zero-padded (name_key): comparing keys orders
 * names as strcmp does, and decides most comparisons of a directory's
 * names (a list page makes thousands) without reading the names. */
typedef struct {
	char *name;
	uint64_t key;
	uint32_t len;
	uint8_t type;
} entry;

static uint64_t name_key(const char *s, size_t n) {
	uint64_t k = 0;
	for (size_t i = 0; i < 8; i++)
		k = k << 8 | (i < n ? (unsigned char)s[i] : 0);
	return k;
}

/* name_order orders two names (no NUL in either) as strcmp does, given
 * their keys. Equal keys mean equal first eight bytes, and a name shorter
 * than eight bytes ends where the other one does (the padding is zeros,
 * a name has none). */
static int name_order(uint64_t ka, const char *a, size_t la, uint64_t kb, const char *b, size_t lb) {
	if (ka != kb)
		return ka < kb ? -1 : 1;
	if (la <= 8 || lb <= 8)
		return la < lb ? -1 : la > lb;
	return cmpn(a + 8, la - 8, b + 8, lb - 8);
}

static int entry_order(const entry *x, const entry *y) { return name_order(x->key, x->name, x->len, y->key, y->name, y->len); }

typedef struct {
	entry *v;
	size_t n;
} entries;

static void entries_free(entries *es) {
	for (size_t i = 0; i < es->n; i++)
		free(es->v[i].name);
	free(es->v);
	es->v = NULL;
	es->n = 0;
}

static const __wasi_rights_t dir_rights = __WASI_RIGHTS_FD_READDIR | __WASI_RIGHTS_FD_FILESTAT_GET | __WASI_RIGHTS_PATH_OPEN |
					  __WASI_RIGHTS_PATH_FILESTAT_GET | __WASI_RIGHTS_FD_READ;

/* A list page needs only the first names of a directory from its resume
 * point on, so the list walk reads a directory with a bound: only names
 * from lo on (after lo if exclusive), and only the limit smallest of them,
 * kept in a max-heap while the directory is read. A page that starts in a
 * directory of F entries then costs F comparisons, not F copies and an
 * F log F sort; when the page needs more, the walk reads on from the last
 * name kept (truncated says there is more, last names it). */
typedef struct {
	const char *lo;
	size_t lolen;
	uint64_t lokey; /* name_key of lo */
	int exclusive;
	size_t limit; /* 0: no limit */
	int truncated;
	char *last; /* malloc'd when truncated */
} bound;

/* walk_batch is the limit of the list walk's bound; 0 (every other walk)
 * reads whole directories. */
static size_t walk_batch;
#define LIST_BATCH (PAGE_SIZE + 12)

static void heap_down(entry *v, size_t n, size_t i) {
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < n && entry_order(&v[l], &v[m]) > 0)
			m = l;
		if (r < n && entry_order(&v[r], &v[m]) > 0)
			m = r;
		if (m == i)
			return;
		entry t = v[i];
		v[i] = v[m];
		v[m] = t;
		i = m;
	}
}

static void heap_up(entry *v, size_t i) {
	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (entry_order(&v[i], &v[parent]) <= 0)
			return;
		entry t = v[i];
		v[i] = v[parent];
		v[parent] = t;
		i = parent;
	}
}

/* sort_entries sorts v by name: a heap sort, since a bounded read leaves
 * its names in a max-heap already, with the comparison inlined (libc's
 * qsort calls it through a pointer and moves entries with memcpy). */
static void sort_entries(entry *v, size_t n) {
	for (size_t i = n / 2; i-- > 0;)
		heap_down(v, n, i);
	for (size_t end = n; end > 1; end--) {
		entry t = v[0];
		v[0] = v[end - 1];
		v[end - 1] = t;
		heap_down(v, end - 1, 0);
	}
}

/* bound_keeps reports whether a name passes b's lower bound and, when the
 * selection is full, is smaller than its largest name. */
static int bound_keeps(bound *b, const entries *out, const char *name, size_t len, uint64_t key) {
	if (!b)
		return 1;
	if (b->lo) {
		int c = name_order(key, name, len, b->lokey, b->lo, b->lolen);
		if (c < 0 || (c == 0 && b->exclusive))
			return 0;
	}
	if (b->limit && out->n == b->limit) {
		b->truncated = 1;
		const entry *max = &out->v[0];
		return name_order(key, name, len, max->key, max->name, max->len) < 0;
	}
	return 1;
}

/* read_names reads the entries of the open directory fd ("." and ".."
 * left out), with the types the directory records, within the bound b
 * (NULL: all). */
static __wasi_errno_t read_names(__wasi_fd_t fd, entries *out, bound *b) {
	size_t cap = 16384, ncap = 0;
	uint8_t *buf = malloc(cap);
	if (!buf)
		return __WASI_ERRNO_NOMEM;
	__wasi_dircookie_t cookie = 0;
	__wasi_errno_t err = 0;
	for (;;) {
		__wasi_size_t used;
		err = __wasi_fd_readdir(fd, buf, cap, cookie, &used);
		if (err)
			break;
		size_t off = 0, got = 0;
		while (off + sizeof(__wasi_dirent_t) <= used) {
			__wasi_dirent_t d;
			memcpy(&d, buf + off, sizeof d);
			size_t rec = sizeof d + d.d_namlen;
			if (off + rec > used)
				break;
			const char *name = (const char *)buf + off + sizeof d;
			off += rec;
			cookie = d.d_next;
			got++;
			if ((d.d_namlen == 1 && name[0] == '.') || (d.d_namlen == 2 && name[0] == '.' && name[1] == '.'))
				continue;
			if (memchr(name, 0, d.d_namlen) || memchr(name, '/', d.d_namlen))
				continue;
			uint64_t key = name_key(name, d.d_namlen);
			if (!bound_keeps(b, out, name, d.d_namlen, key))
				continue;
			if (b && b->limit && out->n == b->limit) {
				/* full: the new name replaces the largest */
				char *nm = dupn(name, d.d_namlen);
				if (!nm) {
					err = __WASI_ERRNO_NOMEM;
					goto done;
				}
				free(out->v[0].name);
				out->v[0] = (entry){nm, key, (uint32_t)d.d_namlen, d.d_type};
				heap_down(out->v, out->n, 0);
				continue;
			}
			if (out->n == ncap) {
				ncap = ncap ? 2 * ncap : 64;
				entry *v = realloc(out->v, ncap * sizeof *v);
				if (!v) {
					err = __WASI_ERRNO_NOMEM;
					goto done;
				}
				out->v = v;
			}
			char *nm = dupn(name, d.d_namlen);
			if (!nm) {
				err = __WASI_ERRNO_NOMEM;
				goto done;
			}
			out->v[out->n++] = (entry){nm, key, (uint32_t)d.d_namlen, d.d_type};
			if (b && b->limit)
				heap_up(out->v, out->n - 1);
		}
		if (used < cap)
			break; /* the end of the directory */
		if (got == 0) {
			/* one entry larger than the buffer */
			if (cap >= (1u << 20)) {
				err = __WASI_ERRNO_NAMETOOLONG;
				break;
			}
			cap *= 2;
			uint8_t *b = realloc(buf, cap);
			if (!b) {
				err = __WASI_ERRNO_NOMEM;
				break;
			}
			buf = b;
		}
	}
done:
	free(buf);
	if (!err && b && b->truncated && out->n > 0) {
		b->last = dupn(out->v[0].name, out->v[0].len);
		if (!b->last)
			err = __WASI_ERRNO_NOMEM;
	}
	return err;
}

/* open_dir opens the directory rel of r, not through a symlink. */
static __wasi_errno_t open_dir(const root *r, const char *rel, __wasi_fd_t *fd) {
	return __wasi_path_open((__wasi_fd_t)r->fd, 0, rel, __WASI_OFLAGS_DIRECTORY, dir_rights, dir_rights, 0, fd);
}

/* read_dir returns the entries of dir (within the bound b, NULL: all)
 * sorted by name, skipping (with a log
 * line naming each) those whose type the host does not tell and that
 * cannot be looked at: a named pipe or a socket (WASI has no type for
 * them), which the host refuses to stat. */
static __wasi_errno_t read_dir(const root *r, const char *dir, entries *out, bound *b) {
	out->v = NULL;
	out->n = 0;
	__wasi_fd_t fd;
	__wasi_errno_t err = open_dir(r, dir, &fd);
	if (err)
		return err;
	err = read_names(fd, out, b);
	(void)__wasi_fd_close(fd);
	if (err) {
		entries_free(out);
		return err;
	}
	size_t w = 0;
	for (size_t i = 0; i < out->n; i++) {
		entry e = out->v[i];
		if (e.type == __WASI_FILETYPE_UNKNOWN) {
			char *rel = join(dir, e.name);
			__wasi_filestat_t st;
			__wasi_errno_t serr = rel ? lstat_at(r, rel, &st) : __WASI_ERRNO_NOMEM;
			char *full = rel ? full_path(r, rel) : NULL;
			const char *shown = full ? full : e.name;
			if (serr == 0) {
				e.type = st.filetype;
			} else if (serr == __WASI_ERRNO_NOENT) {
				SKIP(MCPW_DEBUG, "skip %s: it changed while its directory was read", shown);
			} else if (serr == __WASI_ERRNO_PERM || serr == __WASI_ERRNO_ACCES) {
				SKIP(MCPW_INFO, "skip %s: %s: it is a special file (named pipe, socket or device), which the host refuses, or a file the host cannot read (only regular files are served)", shown, errno_text(serr));
			} else {
				SKIP(MCPW_WARN, "skip %s: %s", shown, errno_text(serr));
			}
			free(rel);
			free(full);
			if (serr) {
				free(e.name);
				continue;
			}
		}
		out->v[w++] = e;
	}
	out->n = w;
	sort_entries(out->v, out->n);
	return 0;
}

/* lstat_chain looks at rel one component at a time: no component may be
 * a symbolic link, every parent must be a directory. It returns 0 and the
 * last component's stat, ENOENT, a symlink marker, or the host's error. */
#define CHAIN_LINK 0xFFFF

static __wasi_errno_t lstat_chain(const root *r, const char *rel, __wasi_filestat_t *st) {
	if (strcmp(rel, ".") == 0)
		return __wasi_path_filestat_get((__wasi_fd_t)r->fd, __WASI_LOOKUPFLAGS_SYMLINK_FOLLOW, ".", st);
	size_t n = strlen(rel);
	char *p = dupn(rel, n);
	if (!p)
		return __WASI_ERRNO_NOMEM;
	__wasi_errno_t err = 0;
	for (size_t i = 0;;) {
		const char *slash = strchr(rel + i, '/');
		size_t end = slash ? (size_t)(slash - rel) : n;
		p[end] = 0;
		err = lstat_at(r, p, st);
		p[end] = slash ? '/' : 0;
		if (err)
			break;
		if (st->filetype == __WASI_FILETYPE_SYMBOLIC_LINK) {
			err = CHAIN_LINK;
			break;
		}
		if (!slash)
			break;
		if (st->filetype != __WASI_FILETYPE_DIRECTORY) {
			err = __WASI_ERRNO_NOENT;
			break;
		}
		i = end + 1;
	}
	free(p);
	return err;
}

/* buf_uint appends v in decimal. */
static void buf_uint(mcpw_buf *b, uint64_t v) {
	char t[20];
	size_t i = sizeof t;
	do {
		t[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	mcpw_buf_append(b, t + i, sizeof t - i);
}

/* ---- timestamps: RFC 3339 in UTC, as Go's time.RFC3339Nano ---- */

static void buf_timestamp(mcpw_buf *b, __wasi_timestamp_t ts) {
	int64_t ns = (int64_t)ts;
	int64_t secs = ns / 1000000000, frac = ns % 1000000000;
	if (frac < 0)
		frac += 1000000000, secs--;
	int64_t days = secs / 86400, sod = secs % 86400;
	if (sod < 0)
		sod += 86400, days--;
	/* days since 1970-01-01 to a civil date (H. Hinnant's algorithm) */
	int64_t z = days + 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t y = yoe + era * 400, doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
	int64_t d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;
	if (m <= 2)
		y++;
	if (y < 0 || y > 9999) {
		mcpw_buf_printf(b, "\"%04d-%02d-%02dT%02d:%02d:%02d", (int)y, (int)m, (int)d, (int)(sod / 3600), (int)(sod / 60 % 60), (int)(sod % 60));
	} else { /* the usual case, without printf: "YYYY-MM-DDThh:mm:ss */
		char t[20];
		int v[6] = {(int)y, (int)m, (int)d, (int)(sod / 3600), (int)(sod / 60 % 60), (int)(sod % 60)};
		t[0] = '"';
		t[1] = (char)('0' + v[0] / 1000), t[2] = (char)('0' + v[0] / 100 % 10);
		t[3] = (char)('0' + v[0] / 10 % 10), t[4] = (char)('0' + v[0] % 10);
		for (int i = 1, at = 5; i < 6; i++, at += 3) {
			t[at] = i < 3 ? '-' : i == 3 ? 'T' : ':';
			t[at + 1] = (char)('0' + v[i] / 10), t[at + 2] = (char)('0' + v[i] % 10);
		}
		mcpw_buf_append(b, t, 20);
	}
	if (frac) {
		char digits[10];
		int nd = 9;
		for (int i = 8; i >= 0; i--, frac /= 10)
			digits[i] = (char)('0' + frac % 10);
		while (nd > 0 && digits[nd - 1] == '0')
			nd--;
		mcpw_buf_append(b, ".", 1);
		mcpw_buf_append(b, digits, (size_t)nd);
	}
	mcpw_buf_append(b, "Z\"", 2);
}

/* ---- MIME types, by name (the table of the Go provider's mime.go) ---- */

static const char *const ext_types[][2] = {
    {".txt", "text/plain"}, {".text", "text/plain"}, {".log", "text/plain"}, {".ini", "text/plain"},
    {".cfg", "text/plain"}, {".conf", "text/plain"}, {".md", "text/markdown"}, {".markdown", "text/markdown"},
    {".rst", "text/x-rst"}, {".adoc", "text/asciidoc"}, {".html", "text/html"}, {".htm", "text/html"},
    {".css", "text/css"}, {".csv", "text/csv"}, {".tsv", "text/tab-separated-values"},
    {".js", "text/javascript"}, {".mjs", "text/javascript"}, {".cjs", "text/javascript"},
    {".ts", "text/x-typescript"}, {".tsx", "text/x-typescript"}, {".jsx", "text/javascript"},
    {".json", "application/json"}, {".jsonl", "application/jsonl"}, {".xml", "application/xml"},
    {".yaml", "application/yaml"}, {".yml", "application/yaml"}, {".toml", "application/toml"},
    {".go", "text/x-go"}, {".mod", "text/plain"}, {".sum", "text/plain"}, {".c", "text/x-c"}, {".h", "text/x-c"},
    {".cc", "text/x-c++"}, {".cpp", "text/x-c++"}, {".hpp", "text/x-c++"}, {".py", "text/x-python"},
    {".rs", "text/x-rust"}, {".java", "text/x-java"}, {".kt", "text/x-kotlin"}, {".rb", "text/x-ruby"},
    {".php", "text/x-php"}, {".swift", "text/x-swift"}, {".sh", "application/x-sh"}, {".bash", "application/x-sh"},
    {".sql", "application/sql"}, {".wat", "text/plain"}, {".proto", "text/plain"}, {".tex", "text/x-tex"},
    {".svg", "image/svg+xml"}, {".png", "image/png"}, {".jpg", "image/jpeg"}, {".jpeg", "image/jpeg"},
    {".gif", "image/gif"}, {".webp", "image/webp"}, {".ico", "image/vnd.microsoft.icon"}, {".bmp", "image/bmp"},
    {".avif", "image/avif"}, {".pdf", "application/pdf"}, {".zip", "application/zip"}, {".gz", "application/gzip"},
    {".tar", "application/x-tar"}, {".wasm", "application/wasm"}, {".mp3", "audio/mpeg"}, {".wav", "audio/wav"},
    {".ogg", "audio/ogg"}, {".mp4", "video/mp4"}, {".webm", "video/webm"}, {".woff", "font/woff"},
    {".woff2", "font/woff2"}, {".ttf", "font/ttf"}, {".bin", "application/octet-stream"},
};

static const char *const name_types[] = {
    "Makefile", "makefile", "GNUmakefile", "Dockerfile", "README", "LICENSE", "COPYING", "NOTICE",
    "AUTHORS", "CHANGELOG", "CONTRIBUTING", "TODO",
};

/* mime_type returns the type of a file by its name, or NULL. */
static const char *mime_type(const char *rel) {
	const char *base = strrchr(rel, '/');
	base = base ? base + 1 : rel;
	for (size_t i = 0; i < sizeof name_types / sizeof *name_types; i++)
		if (base[0] == name_types[i][0] && strcmp(base, name_types[i]) == 0)
			return "text/plain";
	const char *dot = strrchr(base, '.');
	if (!dot)
		return NULL;
	char ext[16];
	size_t n = strlen(dot);
	if (n >= sizeof ext)
		return NULL;
	for (size_t i = 0; i <= n; i++)
		ext[i] = dot[i] >= 'A' && dot[i] <= 'Z' ? (char)(dot[i] + 32) : dot[i];
	for (size_t i = 0; i < sizeof ext_types / sizeof *ext_types; i++)
		if (ext[1] == ext_types[i][0][1] && strcmp(ext, ext_types[i][0]) == 0)
			return ext_types[i][1];
	return NULL;
}

static int ends_with(const char *s, const char *suffix) {
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int text_type(const char *m) {
	static const char *const apps[] = {"application/json", "application/jsonl", "application/xml", "application/yaml",
					   "application/toml", "application/x-sh", "application/sql", "application/javascript"};
	if (strncmp(m, "text/", 5) == 0 || ends_with(m, "+xml") || ends_with(m, "+json"))
		return 1;
	for (size_t i = 0; i < sizeof apps / sizeof *apps; i++)
		if (strcmp(m, apps[i]) == 0)
			return 1;
	return 0;
}

static int control_ok(unsigned char c) { return c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == 0x1b; }

/* looks_text: no control byte but tab, newline, return, form feed and
 * escape. Eight bytes at a time, as utf8_valid: each of the expressions
 * below sets the high bit of exactly the bytes it names (no carry crosses
 * a byte), so a word of printable bytes and newlines, nearly every word of
 * a text, is passed whole; only a word with another control byte is looked
 * at byte by byte. */
static int looks_text(const unsigned char *p, size_t n) {
	const uint64_t low7 = 0x7f7f7f7f7f7f7f7fu, high = 0x8080808080808080u;
	size_t i = 0;
	for (; n - i >= 8; i += 8) {
		uint64_t x;
		memcpy(&x, p + i, 8);
		uint64_t control = ~((x & low7) + 0x6060606060606060u) & ~x & high; /* bytes < 0x20 */
		uint64_t y = x ^ 0x0a0a0a0a0a0a0a0au;
		uint64_t newline = ~(((y & low7) + low7) | y) & high; /* bytes == '\n' */
		if (!(control & ~newline))
			continue;
		for (size_t j = i; j < i + 8; j++)
			if (p[j] < 0x20 && !control_ok(p[j]))
				return 0;
	}
	for (; i < n; i++)
		if (p[i] < 0x20 && !control_ok(p[i]))
			return 0;
	return 1;
}

static int is_text(const char *mime, const char *data, size_t n) {
	if (!mime)
		return looks_text((const unsigned char *)data, n < 512 ? n : 512) && utf8_valid(data, n);
	return text_type(mime) && utf8_valid(data, n);
}

/* ---- describe ---- */

MCPW_EXPORT(describe) int32_t files_describe(int32_t in_len) {
	free(mcpw_input(in_len, NULL));
	mcpw_out("{\"name\":\"files\",\"version\":\"2.0.0\",\"title\":\"Files\","
		 "\"description\":\"Read-only regular files of the directories the operator grants, named by their real file:// URIs.\","
		 "\"uriSpace\":[{\"scheme\":\"file\"}],"
		 "\"operations\":[\"list\",\"templates\",\"read\",\"complete\",\"changes\"],"
		 "\"requests\":{\"filesystem\":[{\"path\":\"/\",\"reason\":\"the directories (or single files) whose files are served, read-only, wherever the host mounts them\"}],"
		 "\"config\":[{\"key\":\"show_hidden\",\"reason\":\"\\\"true\\\" also serves names starting with \\\".\\\" (including .git)\"},"
		 "{\"key\":\"max_file_bytes\",\"reason\":\"largest file read returns, in bytes (default 1048576)\"}]},"
		 "\"cache\":{\"ttlMs\":1000,\"scope\":\"public\"}}");
	return mcpw_ok();
}

/* ---- list ---- */

/* A walk calls visit for each listable regular file; visit returns 0 to
 * stop. */
typedef int (*visit_fn)(void *ctx, const root *r, const char *rel, const entry *e);

/* walk results */
#define WALK_STOP 0
#define WALK_MORE 1
#define WALK_FAIL 2

/* listable: the path is UTF-8, holds no backslash (read refuses one, %5C
 * included: it is a separator on Windows), and its escaped guest path fits
 * a cursor. */
static int listable(const root *r, const char *rel) {
	return utf8_valid(rel, strlen(rel)) && !strchr(rel, '\\') && esc_full_len(r, rel) <= MAX_ESCAPED_PATH;
}

static int walk_dir(const root *r, const char *dir, const char *after, visit_fn visit, void *ctx, problem *pr);

static int visit_entry(const root *r, const char *rel, const entry *e, const char *after, visit_fn visit, void *ctx, problem *pr) {
	if (!visible(e->name) || e->type == __WASI_FILETYPE_SYMBOLIC_LINK)
		return WALK_MORE;
	if (e->type == __WASI_FILETYPE_DIRECTORY) {
		if (esc_full_len(r, rel) >= MAX_ESCAPED_PATH)
			return WALK_MORE;
		return walk_dir(r, rel, after, visit, ctx, pr);
	}
	if (e->type != __WASI_FILETYPE_REGULAR_FILE) {
		char *full = full_path(r, rel);
		SKIP(MCPW_INFO, "skip %s: a %s, not a regular file (only regular files are served)", full ? full : rel, kind_of(e->type));
		free(full);
		return WALK_MORE;
	}
	if (listable(r, rel))
		return visit(ctx, r, rel, e) ? WALK_MORE : WALK_STOP;
	return WALK_MORE;
}

static int32_t root_failed(problem *pr, const root *r, __wasi_errno_t err) {
	mcpw_log(MCPW_WARN, "read directory %s: %s", r->path, errno_text(err));
	if (err == __WASI_ERRNO_PERM || err == __WASI_ERRNO_ACCES)
		SETF(pr, MCPW_INTERNAL, "cannot read the granted directory %s: make it readable by the user mcp-wasm runs as", r->path);
	else
		SETF(pr, MCPW_INTERNAL, "cannot read the granted directory %s: grant an existing directory", r->path);
	return WALK_FAIL;
}

/* walk_dir walks dir in name order; after is the rest of the resume point
 * inside dir (NULL: everything). The list walk reads it in bounded batches
 * (see bound), each from where the last one ended. */
static int walk_dir(const root *r, const char *dir, const char *after, visit_fn visit, void *ctx, problem *pr) {
	size_t flen = 0;
	if (after) {
		const char *slash = strchr(after, '/');
		flen = slash ? (size_t)(slash - after) : strlen(after);
	}
	bound b = {after, flen, after ? name_key(after, flen) : 0, 0, walk_batch, 0, NULL};
	char *owned = NULL; /* b.lo after the first batch */
	int rc = WALK_MORE;
	for (int batch = 0;; batch++) {
		entries es;
		__wasi_errno_t err = read_dir(r, dir, &es, (after || walk_batch) ? &b : NULL);
		if (err) {
			free(b.last);
			free(owned);
			if (strcmp(dir, ".") == 0)
				return root_failed(pr, r, err);
			char *full = full_path(r, dir);
			SKIP(MCPW_WARN, "skip directory %s and everything in it: %s", full ? full : dir, errno_text(err));
			free(full);
			return rc;
		}
		for (size_t i = 0; i < es.n && rc == WALK_MORE; i++) {
			const entry *e = &es.v[i];
			const char *sub = NULL;
			if (after && batch == 0 && e->len == flen && memcmp(e->name, after, flen) == 0) {
				if (e->type != __WASI_FILETYPE_DIRECTORY)
					continue;
				sub = after[flen] == '/' && after[flen + 1] ? after + flen + 1 : NULL;
			}
			char *rel = join(dir, e->name);
			if (!rel) {
				SETF(pr, MCPW_INTERNAL, "provider ran out of memory");
				rc = WALK_FAIL;
				break;
			}
			rc = visit_entry(r, rel, e, sub, visit, ctx, pr);
			free(rel);
		}
		entries_free(&es);
		if (rc != WALK_MORE || !b.truncated) {
			free(b.last);
			free(owned);
			return rc;
		}
		/* Read on after the last name kept, twice as many: a directory of
		 * entries that list nothing (hidden, special, empty directories)
		 * costs a few readings of it, not one per batch. */
		free(owned);
		owned = b.last;
		b.lo = owned;
		b.lolen = strlen(owned);
		b.lokey = name_key(owned, b.lolen);
		b.exclusive = 1;
		b.truncated = 0;
		b.last = NULL;
		b.limit = b.limit > SIZE_MAX / 2 ? SIZE_MAX : 2 * b.limit;
	}
}

typedef struct {
	size_t count, page;
	int more;
	mcpw_buf *out;
	mcpw_buf last; /* escaped guest path of the last file listed */
} list_ctx;

/* resource writes one listed file, or skips it when it changed since its
 * directory was read. */
static int list_visit(void *vctx, const root *r, const char *rel, const entry *e) {
	(void)e;
	list_ctx *c = vctx;
	if (c->count == c->page) {
		c->more = 1;
		return 0;
	}
	__wasi_filestat_t st;
	__wasi_errno_t err = lstat_at(r, rel, &st);
	if (err || st.filetype != __WASI_FILETYPE_REGULAR_FILE) {
		char *full = full_path(r, rel);
		const char *shown = full ? full : rel;
		if (err == __WASI_ERRNO_NOENT)
			SKIP(MCPW_DEBUG, "skip %s: gone since its directory was read", shown);
		else if (err)
			SKIP(MCPW_WARN, "skip %s: %s", shown, errno_text(err));
		else
			SKIP(MCPW_INFO, "skip %s: now a %s, not a regular file", shown, kind_of(st.filetype));
		free(full);
		return 1;
	}
	mcpw_buf *b = c->out;
	mcpw_buf_append(b, c->count ? ",{\"uri\":\"" : "{\"uri\":\"", c->count ? 9 : 8);
	buf_uri(b, r, rel);
	mcpw_buf_append(b, "\",\"name\":", 9);
	mcpw_buf_json_string(b, rel, strlen(rel));
	const char *mime = mime_type(rel);
	if (mime) { /* no printf for the lines of a page: a few hundred per call */
		mcpw_buf_append(b, ",\"mimeType\":\"", 13);
		mcpw_buf_append(b, mime, strlen(mime));
		mcpw_buf_append(b, "\"", 1);
	}
	mcpw_buf_append(b, ",\"size\":", 8);
	buf_uint(b, st.size);
	mcpw_buf_append(b, ",\"annotations\":{\"lastModified\":", 31);
	buf_timestamp(b, st.mtim);
	mcpw_buf_append(b, "}}", 2);
	c->count++;
	c->last.len = 0;
	mcpw_buf_append(&c->last, r->esc, strlen(r->esc));
	mcpw_buf_append(&c->last, "/", 1);
	escape_path(&c->last, rel);
	return 1;
}

/* decode_cursor finds the root a cursor resumes in and the file in it. */
static int decode_cursor(const char *cursor, size_t n, size_t *root_index, char **after) {
	if (!has_prefix(cursor, n, "p:/"))
		return 0;
	char *p = unescape_path(cursor + 3, n - 3);
	if (!p)
		return 0;
	size_t pl = strlen(p);
	char *full = malloc(pl + 2);
	if (!full) {
		free(p);
		return 0;
	}
	full[0] = '/';
	memcpy(full + 1, p, pl + 1);
	free(p);
	const char *rel;
	root *r = root_of(full, &rel);
	if (!r || strcmp(rel, ".") == 0) {
		free(full);
		return 0;
	}
	*root_index = (size_t)(r - roots);
	*after = dupn(rel, strlen(rel));
	free(full);
	return *after != NULL;
}

MCPW_EXPORT(list) int32_t files_list(int32_t in_len) {
	size_t cn;
	char *cursor;
	int32_t rc = begin(in_len, "cursor", &cursor, &cn, NULL, NULL);
	if (rc != MCPW_OK)
		return rc;
	read_config();
	size_t start = 0;
	char *after = NULL;
	if (cursor && cn > 0 && !decode_cursor(cursor, cn, &start, &after)) {
		free(cursor);
		return mcpw_error(MCPW_INVALID_PARAMS, "unknown cursor: pass back a nextCursor from list unchanged");
	}
	int first_page = !cursor || cn == 0;
	free(cursor);
	if (first_page)
		for (size_t i = 0; i < nskipped; i++)
			SKIP(MCPW_WARN, "skip granted directory %s: its path is not absolute and clean UTF-8 without a backslash, or too long to list anything", skipped[i]);
	mcpw_buf page = MCPW_BUF_INIT;
	list_ctx c = {0, PAGE_SIZE, 0, &page, MCPW_BUF_INIT};
	problem pr = {NULL, MCPW_BUF_INIT};
	walk_batch = LIST_BATCH;
	for (size_t i = start; i < nroots && !c.more; i++) {
		if (walk_dir(&roots[i], ".", i == start ? after : NULL, list_visit, &c, &pr) == WALK_FAIL)
			break;
	}
	walk_batch = 0;
	free(after);
	skip_done();
	if (pr.code) {
		mcpw_buf_free(&page);
		mcpw_buf_free(&c.last);
		return answer(&pr);
	}
	mcpw_out("{\"resources\":[");
	mcpw_out_raw(page.data ? page.data : "", page.len);
	mcpw_out("]");
	if (c.more && c.count) {
		mcpw_out(",\"nextCursor\":\"p:");
		mcpw_out_raw(c.last.data, c.last.len);
		mcpw_out("\"");
	}
	mcpw_out("}");
	int failed = page.failed || c.last.failed;
	mcpw_buf_free(&page);
	mcpw_buf_free(&c.last);
	if (failed)
		return mcpw_error(MCPW_INTERNAL, "provider ran out of memory");
	return mcpw_ok();
}

/* ---- read ---- */

/* stat_error answers a failure to reach a file, as not_found. */
static int32_t stat_error(const char *full, __wasi_errno_t err) {
	if (err == CHAIN_LINK)
		FAILF(MCPW_NOT_FOUND, "no file \"%s\": a symbolic link is on the way (links are not followed)", full);
	if (err == __WASI_ERRNO_PERM || err == __WASI_ERRNO_ACCES) {
		mcpw_log(MCPW_INFO, "cannot read %s: %s: it is a special file (named pipe, socket or device), which the host refuses, or a file the host cannot read", full, errno_text(err));
		FAILF(MCPW_NOT_FOUND, "no regular file \"%s\" that can be read (special files are not served)", full);
	}
	if (err != __WASI_ERRNO_NOENT)
		mcpw_log(MCPW_WARN, "cannot reach %s: %s", full, errno_text(err));
	FAILF(MCPW_NOT_FOUND, "no file \"%s\"", full);
}

static const char raise_cap[] = "raise the files provider's max_file_bytes to %s or more (serve --config-value max_file_bytes=SIZE, or grants.config in a config file)";

static int32_t check_regular(const char *full, const __wasi_filestat_t *st) {
	if (st->filetype == __WASI_FILETYPE_DIRECTORY)
		FAILF(MCPW_NOT_FOUND, "\"%s\" is a directory, not a file", full);
	if (st->filetype != __WASI_FILETYPE_REGULAR_FILE)
		FAILF(MCPW_NOT_FOUND, "\"%s\" is a %s, not a regular file (links and special files are not served)", full, kind_of(st->filetype));
	if ((int64_t)st->size > max_bytes) {
		mcpw_buf m = MCPW_BUF_INIT, size = MCPW_BUF_INIT;
		mcpw_buf_printf(&size, "%lld", (long long)st->size);
		mcpw_buf_printf(&m, "file \"%s\" is %lld bytes, over the %lld-byte read limit: ", full, (long long)st->size, (long long)max_bytes);
		mcpw_buf_printf(&m, raise_cap, size.data ? size.data : "");
		mcpw_buf_free(&size);
		return fail(MCPW_INVALID_PARAMS, &m);
	}
	return MCPW_OK;
}

/* locate parses a file:// URI into its root, path below it and guest
 * path (malloc'd, in *full), or answers the error and returns NULL. */
static root *locate(const char *uri, size_t n, const char **rel, char **full, int32_t *rc) {
	*full = NULL;
	if (!has_prefix(uri, n, "file:///")) {
		*rc = mcpw_error(MCPW_INVALID_PARAMS, "not a file URI of this provider: want file:///{path}");
		return NULL;
	}
	const char *rest = uri + 8;
	size_t rn = n - 8;
	if (memchr(rest, '?', rn) || memchr(rest, '#', rn)) {
		*rc = mcpw_error(MCPW_INVALID_PARAMS, "file URIs take no query or fragment");
		return NULL;
	}
	char *p = unescape_path(rest, rn);
	if (!p) {
		*rc = mcpw_error(unescape_error ? MCPW_INVALID_PARAMS : MCPW_INTERNAL, unescape_error ? unescape_error : "provider ran out of memory");
		return NULL;
	}
	size_t pl = strlen(p);
	*full = malloc(pl + 2);
	if (!*full) {
		free(p);
		*rc = mcpw_error(MCPW_INTERNAL, "provider ran out of memory");
		return NULL;
	}
	(*full)[0] = '/';
	memcpy(*full + 1, p, pl + 1);
	free(p);
	root *r = root_of(*full, rel);
	if (!r) {
		mcpw_buf m = MCPW_BUF_INIT;
		mcpw_buf_printf(&m, "no file \"%s\": it is in no granted directory", *full);
		*rc = fail(MCPW_NOT_FOUND, &m);
	}
	return r;
}

/* read_all reads the open file fd, at most max_bytes + 1 bytes; hint is
 * the size its stat gave. */
static __wasi_errno_t read_all(__wasi_fd_t fd, size_t hint, char **data, size_t *len) {
	size_t cap = hint + 1, n = 0, limit = (size_t)max_bytes + 1;
	if ((uint64_t)max_bytes + 1 > SIZE_MAX / 2)
		limit = SIZE_MAX / 2;
	if (cap > limit)
		cap = limit;
	char *buf = malloc(cap ? cap : 1);
	if (!buf)
		return __WASI_ERRNO_NOMEM;
	for (;;) {
		if (n == cap) {
			if (cap >= limit)
				break;
			size_t next = cap * 2 < limit ? cap * 2 : limit;
			char *b = realloc(buf, next);
			if (!b) {
				free(buf);
				return __WASI_ERRNO_NOMEM;
			}
			buf = b, cap = next;
		}
		__wasi_iovec_t iov = {(uint8_t *)buf + n, cap - n};
		__wasi_size_t got;
		__wasi_errno_t err = __wasi_fd_read(fd, &iov, 1, &got);
		if (err) {
			free(buf);
			return err;
		}
		if (got == 0)
			break;
		n += got;
		/* Short of the buffer at exactly the size the stat gave: the end
		 * of the file as of that stat, without another call to hear it
		 * (a file still growing is read as it was when stated). */
		if (n == hint && n < cap)
			break;
	}
	*data = buf;
	*len = n;
	return 0;
}

/* parents_ok checks every directory on the way to rel (not rel itself) as
 * lstat_chain does: no symbolic link, each a directory. */
static __wasi_errno_t parents_ok(const root *r, const char *rel) {
	const char *slash = strrchr(rel, '/');
	if (!slash)
		return 0;
	char *parent = dupn(rel, (size_t)(slash - rel));
	if (!parent)
		return __WASI_ERRNO_NOMEM;
	__wasi_filestat_t st;
	__wasi_errno_t err = lstat_chain(r, parent, &st);
	free(parent);
	if (!err && st.filetype != __WASI_FILETYPE_DIRECTORY)
		err = __WASI_ERRNO_NOENT;
	return err;
}

/* read_file opens rel without following a link at its end (the host
 * refuses special files without opening them) and judges the file it
 * opened: one lookup fewer than a stat before the open, on every read. */
static int32_t read_file(const root *r, const char *rel, const char *full) {
	__wasi_filestat_t st;
	__wasi_errno_t err = parents_ok(r, rel);
	if (err)
		return stat_error(full, err);
	int32_t rc;
	__wasi_fd_t fd;
	err = __wasi_path_open((__wasi_fd_t)r->fd, 0, rel, 0, __WASI_RIGHTS_FD_READ | __WASI_RIGHTS_FD_FILESTAT_GET, 0, 0, &fd);
	if (err)
		return stat_error(full, err == __WASI_ERRNO_LOOP ? CHAIN_LINK : err);
	err = __wasi_fd_filestat_get(fd, &st); /* the file actually opened */
	if (err) {
		(void)__wasi_fd_close(fd);
		return stat_error(full, err);
	}
	if ((rc = check_regular(full, &st)) != MCPW_OK) {
		(void)__wasi_fd_close(fd);
		return rc;
	}
	char *data;
	size_t len;
	err = read_all(fd, (size_t)st.size, &data, &len);
	(void)__wasi_fd_close(fd);
	if (err) {
		mcpw_log(MCPW_WARN, "read %s: %s", full, errno_text(err));
		FAILF(MCPW_INTERNAL, "reading \"%s\" failed: try again", full);
	}
	if ((int64_t)len > max_bytes) {
		free(data);
		mcpw_buf m = MCPW_BUF_INIT;
		mcpw_buf_printf(&m, "file \"%s\" grew past the %lld-byte read limit while it was read: ", full, (long long)max_bytes);
		mcpw_buf_printf(&m, raise_cap, "a larger size");
		return fail(MCPW_INVALID_PARAMS, &m);
	}
	const char *mime = mime_type(rel);
	mcpw_out("{\"contents\":[{\"uri\":\"");
	mcpw_buf u = MCPW_BUF_INIT;
	buf_uri(&u, r, rel);
	mcpw_out_raw(u.data ? u.data : "", u.len);
	mcpw_buf_free(&u);
	mcpw_out("\"");
	if (mime) {
		mcpw_out(",\"mimeType\":\"");
		mcpw_out(mime);
		mcpw_out("\"");
	}
	if (is_text(mime, data, len)) /* is_text checked the UTF-8 */
		mcpw_out_valid_text_content(data, len);
	else
		mcpw_out_blob_content(data, len);
	free(data);
	mcpw_buf ts = MCPW_BUF_INIT;
	buf_timestamp(&ts, st.mtim);
	mcpw_out(",\"annotations\":{\"lastModified\":");
	mcpw_out_raw(ts.data ? ts.data : "\"\"", ts.len);
	mcpw_buf_free(&ts);
	mcpw_out("}}]}");
	return mcpw_ok();
}

MCPW_EXPORT(read) int32_t files_read(int32_t in_len) {
	size_t un;
	char *uri;
	int32_t rc = begin(in_len, "uri", &uri, &un, NULL, NULL);
	if (rc != MCPW_OK)
		return rc;
	read_config();
	const char *rel;
	char *full;
	root *r = locate(uri ? uri : "", uri ? un : 0, &rel, &full, &rc);
	free(uri);
	if (!r) {
		free(full);
		return rc;
	}
	if (strcmp(rel, ".") == 0) {
		mcpw_buf m = MCPW_BUF_INIT;
		mcpw_buf_printf(&m, "\"%s\" is a directory, not a file", full);
		free(full);
		return fail(MCPW_NOT_FOUND, &m);
	}
	if (!visible_path(rel)) {
		mcpw_buf m = MCPW_BUF_INIT;
		mcpw_buf_printf(&m, "no file \"%s\" (hidden files are not served unless show_hidden is true)", full);
		free(full);
		return fail(MCPW_NOT_FOUND, &m);
	}
	if (max_bytes_bad) {
		free(full);
		return mcpw_error(MCPW_INTERNAL, "config max_file_bytes is not a byte count: set it to a positive integer such as 1048576");
	}
	rc = read_file(r, rel, full);
	free(full);
	return rc;
}

/* ---- templates and completion ---- */

static void buf_template(mcpw_buf *b, const root *r) {
	mcpw_buf_append(b, "file://", 7);
	mcpw_buf_append(b, r->esc, strlen(r->esc));
	mcpw_buf_append(b, "/{+path}", 8);
}

MCPW_EXPORT(templates) int32_t files_templates(int32_t in_len) {
	size_t cn;
	char *cursor;
	int32_t rc = begin(in_len, "cursor", &cursor, &cn, NULL, NULL);
	if (rc != MCPW_OK)
		return rc;
	int paged = cursor && cn > 0;
	free(cursor);
	if (paged)
		return mcpw_error(MCPW_INVALID_PARAMS, "unknown cursor: templates has a single page");
	mcpw_out("{\"resourceTemplates\":[");
	for (size_t i = 0; i < nroots && i < MAX_LIST_ITEMS; i++) {
		mcpw_buf t = MCPW_BUF_INIT, title = MCPW_BUF_INIT, desc = MCPW_BUF_INIT;
		buf_template(&t, &roots[i]);
		mcpw_buf_printf(&title, "A file under %s", roots[i].path);
		mcpw_buf_printf(&desc, "A file under %s, by its path relative to it; complete the path argument to browse.", roots[i].path);
		mcpw_out(i ? ",{\"uriTemplate\":" : "{\"uriTemplate\":");
		mcpw_out_json_string(t.data ? t.data : "", t.len);
		mcpw_out(",\"name\":\"file\",\"title\":");
		mcpw_out_json_string(title.data ? title.data : "", title.len);
		mcpw_out(",\"description\":");
		mcpw_out_json_string(desc.data ? desc.data : "", desc.len);
		mcpw_out("}");
		mcpw_buf_free(&t);
		mcpw_buf_free(&title);
		mcpw_buf_free(&desc);
	}
	mcpw_out("]}");
	return mcpw_ok();
}

static int str_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* valid_rel is fs.ValidPath for a relative path without NUL. */
static int valid_rel(const char *p) {
	if (!utf8_valid(p, strlen(p)))
		return 0;
	if (strcmp(p, ".") == 0)
		return 1;
	for (const char *s = p;;) {
		const char *slash = strchr(s, '/');
		size_t l = slash ? (size_t)(slash - s) : strlen(s);
		if (l == 0 || (l == 1 && s[0] == '.') || (l == 2 && s[0] == '.' && s[1] == '.'))
			return 0;
		if (!slash)
			return 1;
		s = slash + 1;
	}
}

static int is_dir(const root *r, const char *dir) {
	if (!valid_rel(dir) || strchr(dir, '\\') || !visible_path(dir))
		return 0;
	__wasi_filestat_t st;
	return lstat_chain(r, dir, &st) == 0 && st.filetype == __WASI_FILETYPE_DIRECTORY;
}

MCPW_EXPORT(complete) int32_t files_complete(int32_t in_len) {
	size_t n, tn = 0, an = 0, vn = 0;
	char *in = mcpw_input(in_len, &n);
	if (!in)
		return mcpw_error(MCPW_INTERNAL, "cannot read the call's input");
	char *tmpl = mcpw_json_string(in, n, "template", &tn);
	char *arg = mcpw_json_string(in, n, "argument.name", &an);
	char *value = mcpw_json_string(in, n, "argument.value", &vn);
	free(in);
	int32_t rc = -1;
	root *r = NULL;
	find_roots();
	if (nroots == 0)
		rc = no_roots();
	else if (!arg || an != 4 || memcmp(arg, "path", 4) != 0)
		rc = mcpw_error(MCPW_INVALID_PARAMS, "no such argument: the file template takes path");
	else {
		for (size_t i = 0; i < nroots && !r; i++) {
			mcpw_buf t = MCPW_BUF_INIT;
			buf_template(&t, &roots[i]);
			if (tmpl && t.data && t.len == tn && memcmp(t.data, tmpl, tn) == 0)
				r = &roots[i];
			mcpw_buf_free(&t);
		}
		if (!r)
			rc = mcpw_error(MCPW_INVALID_PARAMS, "no such template: complete the path of a template this provider lists");
	}
	free(tmpl);
	free(arg);
	if (rc != -1) {
		free(value);
		return rc;
	}
	read_config();
	if (!value)
		value = dupn("", 0), vn = 0;
	/* A value holding NUL names no file: it completes to nothing. */
	char **vals = NULL;
	size_t nv = 0;
	if (value && strlen(value) == vn) {
		char *slash = strrchr(value, '/');
		const char *dir = "", *partial = value;
		if (slash) {
			*slash = 0;
			dir = value;
			partial = slash + 1;
		}
		if (*dir == 0 || is_dir(r, dir)) {
			entries es;
			if (read_dir(r, *dir ? dir : ".", &es, NULL) == 0) {
				size_t dl = strlen(dir), pl = strlen(partial);
				vals = malloc((es.n ? es.n : 1) * sizeof *vals);
				for (size_t i = 0; vals && i < es.n; i++) {
					const entry *e = &es.v[i];
					size_t nl = strlen(e->name);
					size_t prefix = dl ? dl + 1 : 0;
					if (prefix + nl + 1 > MAX_TEXT || strncmp(e->name, partial, pl) != 0 || !visible(e->name) || !utf8_valid(e->name, nl) ||
					    strchr(e->name, '\\'))
						continue;
					int d = e->type == __WASI_FILETYPE_DIRECTORY;
					if (!d && e->type != __WASI_FILETYPE_REGULAR_FILE)
						continue;
					char *v = malloc(prefix + nl + 2);
					if (!v)
						continue;
					if (dl) {
						memcpy(v, dir, dl);
						v[dl] = '/';
					}
					memcpy(v + prefix, e->name, nl);
					v[prefix + nl] = d ? '/' : 0;
					v[prefix + nl + d] = 0;
					vals[nv++] = v;
				}
				entries_free(&es);
			}
		}
	}
	skip_done();
	free(value);
	if (nv)
		qsort(vals, nv, sizeof *vals, str_cmp);
	mcpw_out("{\"values\":[");
	for (size_t i = 0; i < nv && i < MAX_COMPLETIONS; i++) {
		if (i)
			mcpw_out(",");
		mcpw_out_json_cstr(vals[i]);
	}
	mcpw_out_printf("],\"total\":%zu,\"hasMore\":%s}", nv, nv > MAX_COMPLETIONS ? "true" : "false");
	for (size_t i = 0; i < nv; i++)
		free(vals[i]);
	free(vals);
	return mcpw_ok();
}

/* ---- changes ---- */

/* The snapshot: the set of listed guest paths, with the sum of their
 * FNV-128a hashes (the cursor), in an open-addressed table. */
typedef struct {
	char **slot; /* NULL: empty; TOMB: deleted */
	size_t cap, used, count;
	uint64_t sum0, sum1;
} pathset;

static char tomb_mark;
#define TOMB (&tomb_mark)

static void fnv128a(const char *s, uint64_t *hi, uint64_t *lo) {
	uint64_t h = 0x6c62272e07bb0142u, l = 0x62b821756295c58du;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		l ^= *p;
		/* (h:l) * (2^88 + 0x13b) mod 2^128 */
		uint64_t p0 = (l & 0xffffffffu) * 0x13b, p1 = (l >> 32) * 0x13b;
		uint64_t mid = (p0 >> 32) + p1;
		uint64_t nl = (p0 & 0xffffffffu) | (mid << 32);
		uint64_t nh = h * 0x13b + (mid >> 32) + (l << 24);
		h = nh, l = nl;
	}
	*hi = h, *lo = l;
}

static size_t str_hash(const char *s) {
	size_t h = 2166136261u;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		h = (h ^ *p) * 16777619u;
	return h;
}

static void set_free(pathset *s) {
	for (size_t i = 0; i < s->cap; i++)
		if (s->slot[i] && s->slot[i] != TOMB)
			free(s->slot[i]);
	free(s->slot);
	memset(s, 0, sizeof *s);
}

static size_t set_find(const pathset *s, const char *p) {
	if (!s->cap)
		return SIZE_MAX;
	for (size_t i = str_hash(p) & (s->cap - 1), k = 0; k < s->cap; k++, i = (i + 1) & (s->cap - 1)) {
		if (!s->slot[i])
			return SIZE_MAX;
		if (s->slot[i] != TOMB && strcmp(s->slot[i], p) == 0)
			return i;
	}
	return SIZE_MAX;
}

static int set_has(const pathset *s, const char *p) { return set_find(s, p) != SIZE_MAX; }

static int set_grow(pathset *s) {
	size_t cap = s->cap ? s->cap * 2 : 64;
	while (cap < 4 * (s->count + 1))
		cap *= 2;
	char **slot = calloc(cap, sizeof *slot);
	if (!slot)
		return 0;
	for (size_t i = 0; i < s->cap; i++) {
		char *p = s->slot[i];
		if (!p || p == TOMB)
			continue;
		size_t j = str_hash(p) & (cap - 1);
		while (slot[j])
			j = (j + 1) & (cap - 1);
		slot[j] = p;
	}
	free(s->slot);
	s->slot = slot, s->cap = cap, s->used = s->count;
	return 1;
}

/* set_add takes p (malloc'd) unless it is already there. */
static void set_add(pathset *s, char *p) {
	if (set_has(s, p)) {
		free(p);
		return;
	}
	if (2 * (s->used + 1) > s->cap && !set_grow(s)) {
		free(p);
		return;
	}
	size_t j = str_hash(p) & (s->cap - 1);
	while (s->slot[j] && s->slot[j] != TOMB)
		j = (j + 1) & (s->cap - 1);
	if (!s->slot[j])
		s->used++;
	s->slot[j] = p;
	s->count++;
	uint64_t a, b;
	fnv128a(p, &a, &b);
	s->sum0 += a, s->sum1 += b;
}

static void set_remove_at(pathset *s, size_t i) {
	uint64_t a, b;
	fnv128a(s->slot[i], &a, &b);
	s->sum0 -= a, s->sum1 -= b;
	free(s->slot[i]);
	s->slot[i] = TOMB;
	s->count--;
}

static void set_cursor(const pathset *s, mcpw_buf *b) {
	static const char hex[] = "0123456789abcdef";
	char h[32];
	for (int i = 0; i < 16; i++) {
		h[i] = hex[(s->sum0 >> (60 - 4 * i)) & 15];
		h[16 + i] = hex[(s->sum1 >> (60 - 4 * i)) & 15];
	}
	mcpw_buf_append(b, "s:", 2);
	mcpw_buf_append(b, h, 32);
	mcpw_buf_printf(b, ":%zu", s->count);
}

static pathset snap;
static int have_snap;

typedef struct {
	const root *r;
	char *rel;  /* into full */
	char *full; /* malloc'd */
} target;

static int under_target(const char *p, const target *t, size_t nt) {
	for (size_t i = 0; i < nt; i++) {
		if (strcmp(t[i].rel, ".") == 0)
			continue;
		size_t l = strlen(t[i].full);
		if (strcmp(p, t[i].full) == 0 || (strncmp(p, t[i].full, l) == 0 && p[l] == '/'))
			return 1;
	}
	return 0;
}

typedef struct {
	pathset *into;
	pathset *updated; /* when set, also marked updated */
} collect_ctx;

static int collect_visit(void *vctx, const root *r, const char *rel, const entry *e) {
	(void)e;
	collect_ctx *c = vctx;
	char *full = full_path(r, rel);
	if (!full)
		return 1;
	if (c->updated)
		set_add(c->updated, dupn(full, strlen(full)));
	set_add(c->into, full);
	return 1;
}

/* rescan replaces the snapshot by a walk of every root; see the Go
 * provider's rescan. */
static int rescan(const target *t, size_t nt, int current, pathset *updated, problem *pr) {
	pathset next = {0};
	collect_ctx c = {&next, NULL};
	for (size_t i = 0; i < nroots; i++)
		if (walk_dir(&roots[i], ".", NULL, collect_visit, &c, pr) == WALK_FAIL) {
			set_free(&next);
			return 0;
		}
	for (size_t i = 0; i < next.cap; i++) {
		char *p = next.slot[i];
		if (p && p != TOMB && (under_target(p, t, nt) || (current && !set_has(&snap, p))))
			set_add(updated, dupn(p, strlen(p)));
	}
	if (current)
		for (size_t i = 0; i < snap.cap; i++) {
			char *p = snap.slot[i];
			if (p && p != TOMB && (under_target(p, t, nt) || !set_has(&next, p)))
				set_add(updated, dupn(p, strlen(p)));
		}
	set_free(&snap);
	snap = next;
	have_snap = 1;
	return 1;
}

static void refresh(const target *t, pathset *updated, problem *pr) {
	size_t i = set_find(&snap, t->full);
	if (i != SIZE_MAX) {
		set_add(updated, dupn(t->full, strlen(t->full)));
		set_remove_at(&snap, i);
	} else {
		size_t l = strlen(t->full);
		for (size_t k = 0; k < snap.cap; k++) {
			char *p = snap.slot[k];
			if (p && p != TOMB && strncmp(p, t->full, l) == 0 && p[l] == '/') {
				set_add(updated, dupn(p, strlen(p)));
				set_remove_at(&snap, k);
			}
		}
	}
	__wasi_filestat_t st;
	if (lstat_chain(t->r, t->rel, &st) != 0)
		return;
	if (st.filetype == __WASI_FILETYPE_REGULAR_FILE && listable(t->r, t->rel)) {
		set_add(&snap, dupn(t->full, strlen(t->full)));
		set_add(updated, dupn(t->full, strlen(t->full)));
	} else if (st.filetype == __WASI_FILETYPE_DIRECTORY) {
		collect_ctx c = {&snap, updated};
		problem sub = {NULL, MCPW_BUF_INIT};
		if (walk_dir(t->r, t->rel, NULL, collect_visit, &c, &sub) == WALK_FAIL)
			mcpw_log(MCPW_WARN, "refresh %s: %s", t->full, sub.msg.data ? sub.msg.data : "");
		mcpw_buf_free(&sub.msg);
	}
	(void)pr;
}

MCPW_EXPORT(changes) int32_t files_changes(int32_t in_len) {
	size_t n, cn;
	char *in, *cursor;
	int32_t rc = begin(in_len, "cursor", &cursor, &cn, &in, &n);
	if (rc != MCPW_OK)
		return rc;
	read_config();
	target *t = NULL;
	size_t nt = 0;
	for (size_t i = 0;; i++) {
		size_t pn;
		char *p = mcpw_json_array_string(in, n, "paths", i, &pn);
		if (!p)
			break;
		if (pn == 0 || strlen(p) != pn || p[0] != '/') {
			free(p);
			continue;
		}
		clean_abs(p);
		const char *rel;
		root *r = root_of(p, &rel);
		int dup = 0;
		for (size_t k = 0; k < nt && !dup; k++)
			dup = strcmp(t[k].full, p) == 0;
		if (!r || dup || !valid_rel(rel) || (strcmp(rel, ".") != 0 && !visible_path(rel))) {
			free(p);
			continue;
		}
		target *nt2 = realloc(t, (nt + 1) * sizeof *t);
		if (!nt2) {
			free(p);
			continue;
		}
		t = nt2;
		t[nt++] = (target){r, (char *)rel, p};
	}
	free(in);
	pathset updated = {0};
	problem pr = {NULL, MCPW_BUF_INIT};
	int current = 0;
	if (have_snap && cursor && cn > 0) {
		mcpw_buf c = MCPW_BUF_INIT;
		set_cursor(&snap, &c);
		current = c.data && c.len == cn && memcmp(c.data, cursor, cn) == 0;
		mcpw_buf_free(&c);
	}
	int any_root = 0;
	for (size_t i = 0; i < nt; i++)
		any_root |= strcmp(t[i].rel, ".") == 0;
	int ok = 1;
	if (current && !any_root)
		for (size_t i = 0; i < nt; i++)
			refresh(&t[i], &updated, &pr);
	else
		ok = rescan(t, nt, current, &updated, &pr);
	skip_done();
	for (size_t i = 0; i < nt; i++)
		free(t[i].full);
	free(t);
	if (!ok) {
		free(cursor);
		set_free(&updated);
		return answer(&pr);
	}
	mcpw_buf_free(&pr.msg);
	/* updated, sorted, at most MAX_LIST_ITEMS */
	char **paths = malloc((updated.count ? updated.count : 1) * sizeof *paths);
	size_t np = 0;
	for (size_t i = 0; paths && i < updated.cap; i++)
		if (updated.slot[i] && updated.slot[i] != TOMB)
			paths[np++] = updated.slot[i];
	if (np)
		qsort(paths, np, sizeof *paths, str_cmp);
	mcpw_buf now = MCPW_BUF_INIT;
	set_cursor(&snap, &now);
	mcpw_out("{\"cursor\":");
	mcpw_out_json_string(now.data ? now.data : "", now.len);
	if (np)
		mcpw_out(",\"updated\":[");
	for (size_t i = 0; i < np && i < MAX_LIST_ITEMS; i++) {
		mcpw_out(i ? ",\"file://" : "\"file://");
		mcpw_buf e = MCPW_BUF_INIT;
		escape_path(&e, paths[i]);
		mcpw_out_raw(e.data ? e.data : "", e.len);
		mcpw_buf_free(&e);
		mcpw_out("\"");
	}
	int changed = (!cursor || cn == 0) ? nt > 0 : !(now.data && now.len == cn && memcmp(now.data, cursor, cn) == 0);
	mcpw_out_printf("%s,\"listChanged\":%s}", np ? "]" : "", changed ? "true" : "false");
	mcpw_buf_free(&now);
	free(paths);
	set_free(&updated);
	free(cursor);
	return mcpw_ok();
}
