/* mcpw.c - the C SDK for mcp-wasm providers; see mcpw.h for the contract. */
#include "mcpw.h"

#include <stdlib.h>
#include <string.h>

/* ---- mcpw_buf ---- */

/* reserve makes room for n more bytes (plus a NUL) and returns where they
 * go, or NULL after an allocation failure. The caller then adds n to len. */
static char *reserve(mcpw_buf *b, size_t n) {
	if (b->failed)
		return NULL;
	if (n >= SIZE_MAX / 2 - b->len) {
		b->failed = 1;
		return NULL;
	}
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *p = realloc(b->data, cap);
		if (!p) {
			b->failed = 1;
			return NULL;
		}
		b->data = p;
		b->cap = cap;
	}
	return b->data + b->len;
}

static void commit(mcpw_buf *b, size_t n) {
	b->len += n;
	b->data[b->len] = 0;
}

/* copy is memcpy as one memory.copy instruction (bulk memory, a WebAssembly
 * 2.0 feature wazero enables by default) instead of wasi-libc's loop: the
 * host checks its deadline at every loop back-edge, so loops are the main
 * guest cost. */
#ifdef __wasm__
__attribute__((target("bulk-memory")))
#endif
static void copy(void *dst, const void *src, size_t n) {
	__builtin_memcpy(dst, src, n);
}

void mcpw_buf_append(mcpw_buf *b, const void *p, size_t n) {
	char *dst = reserve(b, n);
	if (!dst)
		return;
	copy(dst, p, n);
	commit(b, n);
}

static void append_byte(mcpw_buf *b, char c) { mcpw_buf_append(b, &c, 1); }

void mcpw_buf_free(mcpw_buf *b) {
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
	b->failed = 0;
}

/* utoa writes v in base 8, 10 or 16 at the end of tmp[24] and returns the start. */
static char *utoa(char tmp[24], unsigned long long v, int base, int upper) {
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char *p = tmp + 24;
	do {
		*--p = digits[v % (unsigned)base];
		v /= (unsigned)base;
	} while (v);
	return p;
}

/* pad appends s[0..n) padded to width with spaces, or zeros after the sign. */
static void pad(mcpw_buf *b, const char *s, size_t n, size_t width, int left, int zero) {
	if (zero && !left && n > 0 && s[0] == '-') {
		append_byte(b, '-');
		s++, n--, width = width ? width - 1 : 0;
	}
	for (size_t i = n; !left && i < width; i++)
		append_byte(b, zero ? '0' : ' ');
	mcpw_buf_append(b, s, n);
	for (size_t i = n; left && i < width; i++)
		append_byte(b, ' ');
}

static int read_int(const char **f, va_list *ap) {
	int v = 0;
	if (**f == '*') {
		(*f)++;
		return va_arg(*ap, int);
	}
	while (**f >= '0' && **f <= '9')
		v = v * 10 + (*(*f)++ - '0');
	return v;
}

/* format_number renders conversion conv of the next argument into tmp and
 * returns the start of the digits (with a leading '-' if negative). */
static char *format_number(char tmp[24], char conv, int lng, va_list *ap) {
	if (conv == 'd' || conv == 'i') {
		long long v = lng == 0 ? va_arg(*ap, int) : lng == 1 ? va_arg(*ap, long) : lng == 2 ? va_arg(*ap, long long) : (long long)va_arg(*ap, size_t);
		char *p = utoa(tmp, v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v, 10, 0);
		if (v < 0)
			*--p = '-';
		return p;
	}
	unsigned long long v = lng == 0 ? va_arg(*ap, unsigned) : lng == 1 ? va_arg(*ap, unsigned long) : lng == 2 ? va_arg(*ap, unsigned long long) : va_arg(*ap, size_t);
	return utoa(tmp, v, conv == 'u' ? 10 : conv == 'o' ? 8 : 16, conv == 'X');
}

void mcpw_buf_vprintf(mcpw_buf *b, const char *fmt, va_list ap0) {
	va_list ap;
	va_copy(ap, ap0);
	for (const char *f = fmt; *f;) {
		if (*f != '%') {
			const char *s = f;
			while (*f && *f != '%')
				f++;
			mcpw_buf_append(b, s, (size_t)(f - s));
			continue;
		}
		f++;
		int left = 0, zero = 0, prec = -1, lng = 0;
		for (; *f == '-' || *f == '0'; f++) {
			if (*f == '-')
				left = 1;
			else
				zero = 1;
		}
		int width = read_int(&f, &ap);
		if (width < 0) {
			left = 1;
			width = -width;
		}
		if (*f == '.') {
			f++;
			prec = read_int(&f, &ap);
		}
		if (*f == 'l') {
			lng = f[1] == 'l' ? 2 : 1;
			f += lng;
		} else if (*f == 'z') {
			lng = 3;
			f++;
		}
		char tmp[24], conv = *f ? *f++ : 0;
		const char *s = tmp;
		size_t n = 1;
		if (conv && strchr("diouxX", conv)) {
			s = format_number(tmp, conv, lng, &ap);
			n = (size_t)(tmp + 24 - s);
		} else if (conv == 'c') {
			tmp[0] = (char)va_arg(ap, int);
			zero = 0;
		} else if (conv == 's') {
			s = va_arg(ap, const char *);
			s = s ? s : "(null)";
			n = prec >= 0 ? strnlen(s, (size_t)prec) : strlen(s);
			zero = 0;
		} else if (conv == '%') {
			tmp[0] = '%';
		} else { /* unsupported: copy the conversion through */
			append_byte(b, '%');
			n = conv ? 1 : 0;
			tmp[0] = conv;
		}
		pad(b, s, n, (size_t)width, left, zero);
	}
	va_end(ap);
}

void mcpw_buf_printf(mcpw_buf *b, const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	mcpw_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

/* ---- Output ---- */

static mcpw_buf out = MCPW_BUF_INIT;

/* out_reset empties the output, keeping a small buffer for the next call. */
static void out_reset(void) {
	if (out.cap > (1u << 20))
		mcpw_buf_free(&out);
	out.len = 0;
	out.failed = 0;
}

void mcpw_out_raw(const char *p, size_t n) { mcpw_buf_append(&out, p, n); }

void mcpw_out(const char *s) { mcpw_buf_append(&out, s, strlen(s)); }

void mcpw_out_int(int64_t v) { mcpw_buf_printf(&out, "%lld", (long long)v); }

void mcpw_out_printf(const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	mcpw_buf_vprintf(&out, fmt, ap);
	va_end(ap);
}

/* utf8_len returns the length of the valid UTF-8 sequence at s[0..n), or 0
 * if it is invalid (overlong, surrogate, above U+10FFFF or truncated). */
static size_t utf8_len(const unsigned char *s, size_t n) {
	unsigned char c = s[0], lo = 0x80, hi = 0xBF;
	size_t len;
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		len = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		len = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
	else if (c >= 0xF0 && c <= 0xF4)
		len = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
	else
		return 0;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return len;
}

/* escape_byte appends the JSON escape of an ASCII byte that needs one. */
static void escape_byte(mcpw_buf *b, unsigned char c) {
	static const char hex[] = "0123456789abcdef";
	char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
	const char *named = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : c == '\b' ? "\\b" : c == '\f' ? "\\f" : NULL;
	if (named)
		mcpw_buf_append(b, named, 2);
	else
		mcpw_buf_append(b, e, 6);
}

/* plain8 reports whether 8 bytes are all printable ASCII other than '"' and
 * '\\' (no escaping, no UTF-8 check), testing them at once. The host checks
 * timeouts at every loop back-edge, so fewer iterations matter. */
static int plain8(const unsigned char *p) {
	const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
	uint64_t x, q, b;
	memcpy(&x, p, 8);
	q = x ^ (ones * '"');
	b = x ^ (ones * '\\');
	return (((x - ones * 0x20) & ~x) | ((q - ones) & ~q) | ((b - ones) & ~b) | x) & highs ? 0 : 1;
}

void mcpw_buf_json_string(mcpw_buf *b, const char *s, size_t n) {
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0;
	mcpw_buf_append(b, "\"", 1);
	while (i < n) {
		if (n - i >= 8 && plain8(p + i)) {
			i += 8;
			continue;
		}
		unsigned char c = p[i];
		if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
			i++;
			continue;
		}
		size_t k = c >= 0x80 ? utf8_len(p + i, n - i) : 0;
		if (k) { /* valid multi-byte sequence: part of the run */
			i += k;
			continue;
		}
		mcpw_buf_append(b, s + run, i - run);
		if (c < 0x80)
			escape_byte(b, c);
		else
			mcpw_buf_append(b, "\xEF\xBF\xBD", 3); /* U+FFFD */
		run = ++i;
	}
	mcpw_buf_append(b, s + run, i - run);
	mcpw_buf_append(b, "\"", 1);
}

void mcpw_out_json_string(const char *s, size_t n) { mcpw_buf_json_string(&out, s, n); }

void mcpw_out_json_cstr(const char *s) { mcpw_out_json_string(s, strlen(s)); }

/* utf8_valid reports whether s[0..n) is valid UTF-8. */
static int utf8_valid(const char *s, size_t n) {
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		/* 32, then 8, ASCII bytes at a time: few loop iterations, each of
		 * which carries the host's preemption checkpoint. */
		if (n - i >= 32) {
			uint64_t a, b, c, d;
			memcpy(&a, p + i, 8);
			memcpy(&b, p + i + 8, 8);
			memcpy(&c, p + i + 16, 8);
			memcpy(&d, p + i + 24, 8);
			if (!((a | b | c | d) & 0x8080808080808080u)) {
				i += 32;
				continue;
			}
		}
		if (n - i >= 8) {
			uint64_t x;
			memcpy(&x, p + i, 8);
			if (!(x & 0x8080808080808080u)) {
				i += 8;
				continue;
			}
		}
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		size_t l = utf8_len(p + i, n - i);
		if (l == 0)
			return 0;
		i += l;
	}
	return 1;
}

int mcpw_utf8_valid(const char *s, size_t n) { return utf8_valid(s, n); }

static void out_raw_ref(const char *key, const void *data, size_t n) {
	if (n > INT32_MAX) {
		out.failed = 1;
		return;
	}
	int32_t idx = mcpw_content_write(data, (int32_t)n);
	if (idx < 0) {
		out.failed = 1; /* over the output limit: the host fails the call */
		return;
	}
	char tmp[24], *d = utoa(tmp, (unsigned long long)idx, 10, 0); /* no printf: one per read */
	mcpw_buf_append(&out, ",\"", 2);
	mcpw_buf_append(&out, key, strlen(key));
	mcpw_buf_append(&out, "\":", 2);
	mcpw_buf_append(&out, d, (size_t)(tmp + 24 - d));
}

void mcpw_out_text_content(const char *s, size_t n) {
	if (!utf8_valid(s, n)) {
		mcpw_out(",\"text\":");
		mcpw_out_json_string(s, n);
		return;
	}
	out_raw_ref("rawText", s, n);
}

void mcpw_out_valid_text_content(const char *s, size_t n) { out_raw_ref("rawText", s, n); }

void mcpw_out_blob_content(const void *data, size_t n) { out_raw_ref("rawBlob", data, n); }

void mcpw_out_base64(const void *data, size_t n) {
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = data;
	if (n > SIZE_MAX / 2) {
		out.failed = 1;
		return;
	}
	size_t total = 2 + (n + 2) / 3 * 4;
	char *d = reserve(&out, total);
	if (!d)
		return;
	*d++ = '"';
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
		*d++ = tab[v >> 18 & 63];
		*d++ = tab[v >> 12 & 63];
		*d++ = i + 1 < n ? tab[v >> 6 & 63] : '=';
		*d++ = i + 2 < n ? tab[v & 63] : '=';
	}
	*d = '"';
	commit(&out, total);
}

static const char oom_error[] = "{\"code\":\"internal\",\"message\":\"provider ran out of memory building its output\"}";

/* send hands the collected output to the host and returns status. */
static int32_t send(int32_t status) {
	if (out.failed || out.len > INT32_MAX) {
		out_reset();
		mcpw_output_write(oom_error, (int32_t)(sizeof oom_error - 1));
		return MCPW_ERROR;
	}
	mcpw_output_write(out.data, (int32_t)out.len);
	out_reset();
	return status;
}

int32_t mcpw_ok(void) { return send(MCPW_OK); }

/* MAX_TEXT_FIELD is the ABI's bound on a text field such as an error's
 * message (abi.MaxTextField). */
#define MAX_TEXT_FIELD 4096

/* text_fits returns how many bytes of s[0..n) go into a text field of at
 * most max bytes as mcpw_buf_json_string sends them: a valid character as
 * it is, an invalid byte as U+FFFD (three bytes). The cut falls between
 * characters. */
static size_t text_fits(const char *s, size_t n, size_t max) {
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, sent = 0;
	while (i < n) {
		size_t k = p[i] < 0x80 ? 1 : utf8_len(p + i, n - i);
		size_t w = k ? k : 3;
		if (sent + w > max)
			break;
		sent += w;
		i += k ? k : 1;
	}
	return i;
}

int32_t mcpw_error(const char *code, const char *message) {
	out_reset();
	mcpw_out("{\"code\":");
	mcpw_out_json_cstr(code);
	if (message && *message) {
		/* Cut, as every SDK cuts it: a message that echoes a long input
		 * must not turn a refusal into an ABI violation. */
		mcpw_out(",\"message\":");
		mcpw_out_json_string(message, text_fits(message, strlen(message), MAX_TEXT_FIELD));
	}
	mcpw_out("}");
	send(MCPW_ERROR);
	return MCPW_ERROR;
}

/* ---- Input ---- */

char *mcpw_input(int32_t in_len, size_t *out_len) {
	out_reset();
	if (in_len < 0)
		return NULL;
	char *buf = malloc((size_t)in_len + 1);
	if (!buf)
		return NULL;
	int32_t n = mcpw_input_read(buf, in_len);
	if (n < 0 || n > in_len)
		n = 0;
	buf[n] = 0;
	if (out_len)
		*out_len = (size_t)n;
	return buf;
}

/* ---- JSON reader (for the host's compact inputs) ---- */

typedef struct {
	const char *p, *end;
	int depth;
} reader;

#define MAX_DEPTH 64

static void ws(reader *r) {
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
		r->p++;
}

static int hex4(const char *p, const char *end, uint32_t *v) {
	if (end - p < 4)
		return 0;
	*v = 0;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return 0;
		*v = *v << 4 | (uint32_t)d;
	}
	return 1;
}

static char *put_utf8(char *d, uint32_t r) {
	if (r < 0x80) {
		*d++ = (char)r;
	} else if (r < 0x800) {
		*d++ = (char)(0xC0 | r >> 6);
		*d++ = (char)(0x80 | (r & 0x3F));
	} else if (r < 0x10000) {
		*d++ = (char)(0xE0 | r >> 12);
		*d++ = (char)(0x80 | (r >> 6 & 0x3F));
		*d++ = (char)(0x80 | (r & 0x3F));
	} else {
		*d++ = (char)(0xF0 | r >> 18);
		*d++ = (char)(0x80 | (r >> 12 & 0x3F));
		*d++ = (char)(0x80 | (r >> 6 & 0x3F));
		*d++ = (char)(0x80 | (r & 0x3F));
	}
	return d;
}

/* unescape decodes the \u escape at p (pointing after "\u") into d, joining
 * surrogate pairs; lone surrogates become U+FFFD. Returns the new p or NULL. */
static const char *unescape_u(const char *p, const char *end, char **d) {
	uint32_t r, lo;
	if (!hex4(p, end, &r))
		return NULL;
	p += 4;
	if (r >= 0xD800 && r <= 0xDBFF && end - p >= 6 && p[0] == '\\' && p[1] == 'u' && hex4(p + 2, end, &lo) && lo >= 0xDC00 && lo <= 0xDFFF) {
		r = 0x10000 + ((r - 0xD800) << 10) + (lo - 0xDC00);
		p += 6;
	} else if (r >= 0xD800 && r <= 0xDFFF) {
		r = 0xFFFD;
	}
	*d = put_utf8(*d, r);
	return p;
}

/* simple_escape returns the byte a one-letter escape stands for, or -1. */
static int simple_escape(char x) {
	switch (x) {
	case '"': case '\\': case '/': return x;
	case 'b': return '\b';
	case 'f': return '\f';
	case 'n': return '\n';
	case 'r': return '\r';
	case 't': return '\t';
	}
	return -1;
}

/* string decodes the JSON string at r->p (a '"') into a malloc'd buffer.
 * With want == 0 it only checks and skips it, returning a non-NULL dummy.
 * Returns NULL if the string is malformed or memory runs out. */
static char *string(reader *r, int want, size_t *out_len) {
	const char *s = ++r->p, *e = s;
	while (e < r->end && *e != '"') {
		if (*e == '\\' && ++e == r->end)
			return NULL;
		e++;
	}
	if (e >= r->end)
		return NULL;
	r->p = e + 1;
	/* Decoding never lengthens a string. When only skipping, decode each
	 * character into scratch and throw it away. */
	char scratch[4], *buf = want ? malloc((size_t)(e - s) + 1) : NULL, *d = buf;
	if (want && !buf)
		return NULL;
	for (const char *p = s; p < e;) {
		char c = *p++;
		if (!want)
			d = scratch;
		if ((unsigned char)c < 0x20)
			goto bad;
		if (c != '\\')
			*d++ = c;
		else if (simple_escape(*p) >= 0)
			*d++ = (char)simple_escape(*p++);
		else if (*p++ != 'u' || !(p = unescape_u(p, e, &d)))
			goto bad;
	}
	if (!want)
		return (char *)s;
	*d = 0;
	if (out_len)
		*out_len = (size_t)(d - buf);
	return buf;
bad:
	free(buf);
	return NULL;
}

static int skip_value(reader *r);

/* skip_container skips an object or array at r->p. */
static int skip_container(reader *r) {
	char close = *r->p == '{' ? '}' : ']';
	int object = close == '}';
	if (++r->depth > MAX_DEPTH)
		return 0;
	r->p++;
	ws(r);
	if (r->p < r->end && *r->p == close) {
		r->p++, r->depth--;
		return 1;
	}
	for (;;) {
		ws(r);
		if (object) {
			if (r->p >= r->end || *r->p != '"' || !string(r, 0, NULL))
				return 0;
			ws(r);
			if (r->p >= r->end || *r->p++ != ':')
				return 0;
		}
		if (!skip_value(r))
			return 0;
		ws(r);
		if (r->p >= r->end)
			return 0;
		char c = *r->p++;
		if (c == close) {
			r->depth--;
			return 1;
		}
		if (c != ',')
			return 0;
	}
}

static int skip_value(reader *r) {
	ws(r);
	if (r->p >= r->end)
		return 0;
	char c = *r->p;
	if (c == '"')
		return string(r, 0, NULL) != NULL;
	if (c == '{' || c == '[')
		return skip_container(r);
	const char *start = r->p; /* number or literal */
	while (r->p < r->end && (strchr("+-.eE", *r->p) || (*r->p >= '0' && *r->p <= '9') || (*r->p >= 'a' && *r->p <= 'z')))
		r->p++;
	return r->p > start;
}

/* seek moves r->p to the value of the member named key[0..klen) of the
 * object at r->p. Returns 0 if the member is absent or the JSON malformed. */
static int seek(reader *r, const char *key, size_t klen) {
	ws(r);
	if (r->p >= r->end || *r->p != '{' || ++r->depth > MAX_DEPTH)
		return 0;
	r->p++;
	ws(r);
	if (r->p < r->end && *r->p == '}')
		return 0;
	for (;;) {
		size_t n;
		ws(r);
		char *name = r->p < r->end && *r->p == '"' ? string(r, 1, &n) : NULL;
		if (!name)
			return 0;
		int match = n == klen && memcmp(name, key, klen) == 0;
		free(name);
		ws(r);
		if (r->p >= r->end || *r->p++ != ':')
			return 0;
		ws(r);
		if (match)
			return 1;
		if (!skip_value(r))
			return 0;
		ws(r);
		if (r->p >= r->end || *r->p++ != ',')
			return 0; /* '}' (absent) or malformed */
	}
}

/* seek_path follows a dotted path ("argument.name") from the object at r->p
 * to the value it names. */
static int seek_path(reader *r, const char *path) {
	for (;;) {
		const char *dot = strchr(path, '.');
		size_t seg = dot ? (size_t)(dot - path) : strlen(path);
		if (!seek(r, path, seg))
			return 0;
		if (!dot)
			return 1;
		path = dot + 1;
	}
}

char *mcpw_json_string(const char *json, size_t len, const char *path, size_t *out_len) {
	reader r = {json, json + len, 0};
	if (!json || !path || !seek_path(&r, path))
		return NULL;
	return r.p < r.end && *r.p == '"' ? string(&r, 1, out_len) : NULL;
}

/* integer parses the JSON integer at r->p (no fraction or exponent, at most
 * 18 digits, so it cannot overflow). */
static int integer(reader *r, int64_t *out) {
	int neg = r->p < r->end && *r->p == '-';
	int64_t v = 0;
	int digits = 0;
	r->p += neg;
	while (r->p < r->end && *r->p >= '0' && *r->p <= '9' && digits < 19) {
		v = v * 10 + (*r->p++ - '0');
		digits++;
	}
	if (digits == 0 || digits > 18 || (r->p < r->end && strchr(".eE0123456789", *r->p)))
		return 0;
	*out = neg ? -v : v;
	return 1;
}

int mcpw_json_int(const char *json, size_t len, const char *path, int64_t *out) {
	reader r = {json, json + len, 0};
	int64_t v;
	if (!json || !path || !out || !seek_path(&r, path) || !integer(&r, &v))
		return 0;
	*out = v;
	return 1;
}

char *mcpw_json_array_string(const char *json, size_t len, const char *path, size_t index, size_t *out_len) {
	reader r = {json, json + len, 0};
	if (!json || !path || !seek_path(&r, path) || r.p >= r.end || *r.p != '[')
		return NULL;
	r.p++;
	for (size_t i = 0;; i++) {
		ws(&r);
		if (r.p >= r.end || *r.p == ']')
			return NULL;
		if (i == index)
			return *r.p == '"' ? string(&r, 1, out_len) : NULL;
		if (!skip_value(&r))
			return NULL;
		ws(&r);
		if (r.p >= r.end || *r.p++ != ',')
			return NULL;
	}
}

/* ---- Base64 ---- */

static int sextet(unsigned char c) {
	return c >= 'A' && c <= 'Z' ? c - 'A' : c >= 'a' && c <= 'z' ? c - 'a' + 26 : c >= '0' && c <= '9' ? c - '0' + 52 : c == '+' ? 62 : c == '/' ? 63 : -1;
}

unsigned char *mcpw_base64_decode(const char *s, size_t n, size_t *out_len) {
	if (!s || n % 4 != 0)
		return NULL;
	unsigned char *out = malloc(n / 4 * 3 + 1), *d = out;
	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i += 4) {
		size_t pad = i + 4 == n ? (s[n - 1] == '=') + (s[n - 1] == '=' && s[n - 2] == '=') : 0;
		uint32_t v = 0;
		for (size_t k = 0; k < 4; k++) {
			int x = k < 4 - pad ? sextet((unsigned char)s[i + k]) : 0;
			if (x < 0) {
				free(out);
				return NULL;
			}
			v = v << 6 | (uint32_t)x;
		}
		*d++ = (unsigned char)(v >> 16);
		if (pad < 2)
			*d++ = (unsigned char)(v >> 8);
		if (pad < 1)
			*d++ = (unsigned char)v;
	}
	*d = 0;
	if (out_len)
		*out_len = (size_t)(d - out);
	return out;
}

/* ---- Logging and configuration ---- */

void mcpw_log(int32_t level, const char *fmt, ...) {
	mcpw_buf b = MCPW_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	mcpw_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	if (b.data)
		mcpw_log_write(level, b.data, (int32_t)(b.len > 4096 ? 4096 : b.len));
	mcpw_buf_free(&b);
}

int32_t mcpw_config_get(const char *key, char *buf, size_t cap) {
	size_t klen = strlen(key);
	int32_t room = cap == 0 ? 0 : cap - 1 > INT32_MAX ? INT32_MAX : (int32_t)(cap - 1);
	int32_t n = mcpw_config_get_raw(key, (int32_t)klen, cap ? buf : NULL, room);
	if (n >= 0 && (size_t)n < cap)
		buf[n] = 0;
	return n;
}

/* ---- Outbound HTTP ---- */

static void http_clear(mcpw_http_response *resp) {
	memset(resp, 0, sizeof *resp);
}

void mcpw_http_response_free(mcpw_http_response *resp) {
	if (!resp)
		return;
	free(resp->body);
	free(resp->error_code);
	free(resp->error_message);
	free(resp->raw);
	http_clear(resp);
}

/* http_fail records an SDK-side failure as error code "invalid". */
static int http_fail(mcpw_http_response *resp, const char *message) {
	mcpw_http_response_free(resp);
	resp->error_code = strdup("invalid");
	resp->error_message = strdup(message);
	return MCPW_HTTP_FAILED;
}

/* encode_request writes the FetchRequest JSON of req into b. */
static void encode_request(mcpw_buf *b, const mcpw_http_request *req) {
	mcpw_buf_append(b, "{", 1);
	if (req->method && *req->method) {
		mcpw_buf_printf(b, "\"method\":");
		mcpw_buf_json_string(b, req->method, strlen(req->method));
		mcpw_buf_append(b, ",", 1);
	}
	mcpw_buf_printf(b, "\"url\":");
	mcpw_buf_json_string(b, req->url, strlen(req->url));
	if (req->n_headers > 0) {
		mcpw_buf_printf(b, ",\"headers\":{");
		for (size_t i = 0; i < req->n_headers; i++) {
			if (i > 0)
				mcpw_buf_append(b, ",", 1);
			mcpw_buf_json_string(b, req->headers[i].name, strlen(req->headers[i].name));
			mcpw_buf_append(b, ":", 1);
			mcpw_buf_json_string(b, req->headers[i].value, strlen(req->headers[i].value));
		}
		mcpw_buf_append(b, "}", 1);
	}
	if (req->body && req->body_len > 0) {
		mcpw_buf_printf(b, ",\"body\":");
		mcpw_buf_json_string(b, req->body, req->body_len);
	}
	mcpw_buf_append(b, "}", 1);
}

/* decode_response fills resp from the host's FetchResponse JSON (which
 * resp->raw holds). */
static int decode_response(mcpw_http_response *resp) {
	const char *j = resp->raw;
	size_t n = resp->raw_len;
	int64_t status;
	resp->error_code = mcpw_json_string(j, n, "error.code", NULL);
	if (resp->error_code) {
		resp->error_message = mcpw_json_string(j, n, "error.message", NULL);
		return MCPW_HTTP_REFUSED;
	}
	if (!mcpw_json_int(j, n, "status", &status) || status < 100 || status > 999)
		return http_fail(resp, "mcpw: host returned neither a response nor an error");
	resp->status = (int32_t)status;
	size_t len = 0;
	char *b64 = mcpw_json_string(j, n, "bodyBase64", &len);
	if (b64) {
		resp->body = mcpw_base64_decode(b64, len, &resp->body_len);
		free(b64);
		if (!resp->body)
			return http_fail(resp, "mcpw: host response has a malformed bodyBase64");
		return MCPW_HTTP_OK;
	}
	resp->body = (unsigned char *)mcpw_json_string(j, n, "body", &resp->body_len);
	if (!resp->body) {
		resp->body = calloc(1, 1);
		resp->body_len = 0;
	}
	return resp->body ? MCPW_HTTP_OK : http_fail(resp, "mcpw: out of memory");
}

int mcpw_http_fetch(const mcpw_http_request *req, mcpw_http_response *resp) {
	mcpw_buf b = MCPW_BUF_INIT;
	http_clear(resp);
	if (!req || !req->url)
		return http_fail(resp, "mcpw: request without a url");
	encode_request(&b, req);
	if (b.failed || b.len > INT32_MAX) {
		mcpw_buf_free(&b);
		return http_fail(resp, "mcpw: out of memory encoding the request");
	}
	int32_t n = mcpw_http_fetch_raw(b.data, (int32_t)b.len);
	mcpw_buf_free(&b);
	if (n <= 0)
		return http_fail(resp, "mcpw: host returned an empty answer");
	resp->raw = malloc((size_t)n + 1);
	if (!resp->raw)
		return http_fail(resp, "mcpw: out of memory reading the response");
	int32_t got = mcpw_http_read_raw(resp->raw, n);
	resp->raw_len = got < 0 ? 0 : got > n ? (size_t)n : (size_t)got;
	resp->raw[resp->raw_len] = 0;
	return decode_response(resp);
}

int mcpw_http_get(const char *url, mcpw_http_response *resp) {
	mcpw_http_request req = {0};
	req.url = url;
	return mcpw_http_fetch(&req, resp);
}

char *mcpw_http_header(const mcpw_http_response *resp, const char *name) {
	reader r;
	if (!resp || !resp->raw || !name)
		return NULL;
	r = (reader){resp->raw, resp->raw + resp->raw_len, 0};
	if (!seek(&r, "headers", 7) || !seek(&r, name, strlen(name)))
		return NULL;
	return r.p < r.end && *r.p == '"' ? string(&r, 1, NULL) : NULL;
}
