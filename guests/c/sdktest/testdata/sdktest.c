/* sdktest.c - a provider that exercises the C SDK's helpers for
 * guests/c/sdktest/sdk_test.go. Not an example: every read runs one helper and
 * reports what it returned.
 *
 *   sdk:///fetch   GET the URL in config "url" (header "x-probe: 1"), report
 *                  status, content-type, the body hex-encoded, or the refusal
 *   sdk:///post    POST "a\"b" to it with method "POST"
 *   sdk:///json    mcpw_json_int and mcpw_json_array_string on config "json"
 *   sdk:///b64     mcpw_base64_decode of config "b64", hex-encoded
 *   sdk:///utf8    mcpw_utf8_valid of each space-separated base64 input in
 *                  config "b64": one letter each, v (valid) or i
 *   sdk:///rawtext those bytes through mcpw_out_valid_text_content, valid or not
 *   sdk:///error   mcpw_error(MCPW_INVALID_PARAMS, ...) with those bytes
 *                  repeated config "reps" times
 */
#include <stdlib.h>
#include <string.h>

#include "mcpw.h"

MCPW_EXPORT(describe) int32_t sdk_describe(int32_t in_len) {
	free(mcpw_input(in_len, NULL));
	mcpw_out("{\"name\":\"sdktest\",\"version\":\"1\",\"uriSpace\":[{\"scheme\":\"sdk\"}],\"operations\":[\"read\"]}");
	return mcpw_ok();
}

static char *config(const char *key) {
	static char buf[4096];
	int32_t n = mcpw_config_get(key, buf, sizeof buf);
	return n >= 0 && (size_t)n < sizeof buf ? buf : NULL;
}

static void hex(mcpw_buf *b, const unsigned char *p, size_t n) {
	for (size_t i = 0; i < n; i++)
		mcpw_buf_printf(b, "%02x", p[i]);
}

static int32_t fetch(int post) {
	mcpw_header h[] = {{"x-probe", "1"}};
	mcpw_http_request req = {0};
	mcpw_http_response resp;
	mcpw_buf b = MCPW_BUF_INIT;
	req.url = config("url");
	if (!req.url)
		return mcpw_error(MCPW_INTERNAL, "config url not granted");
	req.headers = h;
	req.n_headers = 1;
	if (post) {
		req.method = "POST";
		req.body = "a\"b";
		req.body_len = 3;
	}
	int rc = mcpw_http_fetch(&req, &resp);
	if (rc == MCPW_HTTP_OK) {
		char *ct = mcpw_http_header(&resp, "content-type");
		mcpw_buf_printf(&b, "status=%d type=%s body=", (int)resp.status, ct ? ct : "-");
		hex(&b, resp.body, resp.body_len);
		free(ct);
	} else {
		mcpw_buf_printf(&b, "rc=%d code=%s message=%s", rc, resp.error_code ? resp.error_code : "-", resp.error_message ? resp.error_message : "-");
	}
	mcpw_http_response_free(&resp);
	mcpw_out("{\"contents\":[{\"uri\":\"sdk:///fetch\",\"text\":");
	mcpw_out_json_string(b.data ? b.data : "", b.len);
	mcpw_out("}]}");
	mcpw_buf_free(&b);
	return mcpw_ok();
}

static int32_t json(void) {
	const char *j = config("json");
	mcpw_buf b = MCPW_BUF_INIT;
	int64_t v = 0;
	if (!j)
		return mcpw_error(MCPW_INTERNAL, "config json not granted");
	size_t n = strlen(j);
	int ok = mcpw_json_int(j, n, "a.n", &v);
	mcpw_buf_printf(&b, "int=%d:%lld", ok, (long long)v);
	for (size_t i = 0;; i++) {
		char *s = mcpw_json_array_string(j, n, "list", i, NULL);
		if (!s)
			break;
		mcpw_buf_printf(&b, " [%zu]=%s", i, s);
		free(s);
	}
	mcpw_out("{\"contents\":[{\"uri\":\"sdk:///json\",\"text\":");
	mcpw_out_json_string(b.data ? b.data : "", b.len);
	mcpw_out("}]}");
	mcpw_buf_free(&b);
	return mcpw_ok();
}

static int32_t b64(void) {
	const char *s = config("b64");
	mcpw_buf b = MCPW_BUF_INIT;
	size_t n = 0;
	if (!s)
		return mcpw_error(MCPW_INTERNAL, "config b64 not granted");
	unsigned char *d = mcpw_base64_decode(s, strlen(s), &n);
	if (d)
		hex(&b, d, n);
	else
		mcpw_buf_printf(&b, "malformed");
	free(d);
	mcpw_out("{\"contents\":[{\"uri\":\"sdk:///b64\",\"text\":");
	mcpw_out_json_string(b.data ? b.data : "", b.len);
	mcpw_out("}]}");
	mcpw_buf_free(&b);
	return mcpw_ok();
}

static int32_t utf8(void) {
	const char *s = config("b64");
	if (!s)
		return mcpw_error(MCPW_INTERNAL, "config b64 not granted");
	mcpw_out("{\"contents\":[{\"uri\":\"sdk:///utf8\",\"text\":\"");
	while (*s) {
		size_t len = strcspn(s, " "), n = 0;
		unsigned char *d = mcpw_base64_decode(s, len, &n);
		if (!d)
			return mcpw_error(MCPW_INTERNAL, "config b64: an input is not base64");
		mcpw_out(mcpw_utf8_valid((const char *)d, n) ? "v" : "i");
		free(d);
		s += len;
		s += *s == ' ';
	}
	mcpw_out("\"}]}");
	return mcpw_ok();
}

static int32_t rawtext(void) {
	const char *s = config("b64");
	size_t n = 0;
	unsigned char *d = s ? mcpw_base64_decode(s, strlen(s), &n) : NULL;
	if (!d)
		return mcpw_error(MCPW_INTERNAL, "config b64 not granted or not base64");
	mcpw_out("{\"contents\":[{\"uri\":\"sdk:///rawtext\"");
	mcpw_out_valid_text_content((const char *)d, n);
	mcpw_out("}]}");
	free(d);
	return mcpw_ok();
}

static int32_t long_error(void) {
	const char *s = config("b64");
	size_t n = 0;
	unsigned char *d = s ? mcpw_base64_decode(s, strlen(s), &n) : NULL;
	const char *r = config("reps");
	size_t reps = r ? strtoul(r, NULL, 10) : 0;
	if (!d || n == 0 || reps == 0 || reps > 100000) {
		free(d);
		return mcpw_error(MCPW_INTERNAL, "config b64 and reps not granted or malformed");
	}
	mcpw_buf b = MCPW_BUF_INIT;
	for (size_t i = 0; i < reps; i++)
		mcpw_buf_append(&b, (const char *)d, n);
	free(d);
	int32_t rc = mcpw_error(MCPW_INVALID_PARAMS, b.data);
	mcpw_buf_free(&b);
	return rc;
}

MCPW_EXPORT(read) int32_t sdk_read(int32_t in_len) {
	size_t n;
	char *in = mcpw_input(in_len, &n);
	char *uri = in ? mcpw_json_string(in, n, "uri", NULL) : NULL;
	free(in);
	int32_t rc;
	if (!uri)
		rc = mcpw_error(MCPW_INVALID_PARAMS, "missing uri");
	else if (strcmp(uri, "sdk:///fetch") == 0)
		rc = fetch(0);
	else if (strcmp(uri, "sdk:///post") == 0)
		rc = fetch(1);
	else if (strcmp(uri, "sdk:///json") == 0)
		rc = json();
	else if (strcmp(uri, "sdk:///b64") == 0)
		rc = b64();
	else if (strcmp(uri, "sdk:///utf8") == 0)
		rc = utf8();
	else if (strcmp(uri, "sdk:///rawtext") == 0)
		rc = rawtext();
	else if (strcmp(uri, "sdk:///error") == 0)
		rc = long_error();
	else
		rc = mcpw_error(MCPW_NOT_FOUND, "no such probe");
	free(uri);
	return rc;
}
