/* buggy.c - a small provider for `mcp-wasm check`'s tests: correct as it
 * is, and broken in one way by each file beside it, which defines one
 * BUG_ macro and includes this one. */
#include <stdlib.h>
#include <string.h>

#include "mcpw.h"

#define PREFIX "fix:///items/"

static const char *ids[] = {"a", "b", "c", "d"};
static const char *texts[] = {"alpha", "bravo", "charlie", "delta"};
#define N 4

static int find(const char *uri) {
	if (!uri || strncmp(uri, PREFIX, strlen(PREFIX)) != 0)
		return -1;
	for (int i = 0; i < N; i++)
		if (strcmp(uri + strlen(PREFIX), ids[i]) == 0)
			return i;
	return -1;
}

static char *member(int32_t in_len, const char *path) {
	size_t n;
	char *in = mcpw_input(in_len, &n);
	char *v = in ? mcpw_json_string(in, n, path, NULL) : NULL;
	free(in);
	return v;
}

MCPW_EXPORT(describe) int32_t fix_describe(int32_t in_len) {
	free(mcpw_input(in_len, NULL));
	mcpw_out("{\"name\":\"fix\",\"version\":\"1.0.0\",\"uriSpace\":[{\"scheme\":\"fix\"}],"
	         "\"operations\":[\"list\",\"templates\",\"read\",\"complete\",\"changes\"]}");
	return mcpw_ok();
}

MCPW_EXPORT(list) int32_t fix_list(int32_t in_len) {
	char *cursor = member(in_len, "cursor");
	int start = cursor ? atoi(cursor) : 0;
	free(cursor);
#ifdef BUG_ENDLESS
	/* Every page has a next one: a new resource, a new cursor. */
	mcpw_out_printf("{\"resources\":[{\"uri\":\"" PREFIX "p%d\",\"name\":\"p%d\"}],\"nextCursor\":\"%d\"}", start, start, start + 1);
	return mcpw_ok();
#endif
	if (start < 0 || start >= N)
		return mcpw_error(MCPW_INVALID_PARAMS, "bad cursor");
#ifdef BUG_MEMORY
	static char *volatile kept; /* volatile: the compiler may not drop it */
	if (!kept) {
		kept = malloc(40 << 20); /* 40 MiB of the 64 MiB limit */
		if (kept)
			memset(kept, 1, 40 << 20);
	}
#endif
	int end = start + 2 < N ? start + 2 : N;
	mcpw_out("{\"resources\":[");
	for (int i = start; i < end; i++) {
		const char *mime = "text/plain";
#ifdef BUG_MIME
		if (i == 3)
			mime = "image/png";
#endif
		mcpw_out_printf("%s{\"uri\":\"" PREFIX "%s\",\"name\":\"%s\",\"mimeType\":\"%s\",\"size\":%d}",
		                i > start ? "," : "", ids[i], ids[i], mime, (int)strlen(texts[i]));
	}
#ifdef BUG_GHOST
	if (start == 0)
		mcpw_out(",{\"uri\":\"" PREFIX "ghost\",\"name\":\"ghost\"}");
#endif
	mcpw_out("]");
	if (end < N)
		mcpw_out_printf(",\"nextCursor\":\"%d\"", end);
#ifdef BUG_REPEAT
	else
		mcpw_out(",\"nextCursor\":\"1\""); /* back into the middle */
#endif
	mcpw_out("}");
	return mcpw_ok();
}

MCPW_EXPORT(templates) int32_t fix_templates(int32_t in_len) {
	free(mcpw_input(in_len, NULL));
	mcpw_out("{\"resourceTemplates\":[{\"uriTemplate\":\"" PREFIX "{id}\",\"name\":\"item\",\"mimeType\":\"text/plain\"}]}");
	return mcpw_ok();
}

MCPW_EXPORT(read) int32_t fix_read(int32_t in_len) {
	char *uri = member(in_len, "uri");
	int i = find(uri);
#ifdef BUG_ENDLESS
	if (uri && strncmp(uri, PREFIX "p", strlen(PREFIX) + 1) == 0) {
		free(uri);
		i = 0; /* every page's resource reads */
		uri = strdup(PREFIX "a");
	}
#endif
	if (i < 0) {
		free(uri);
#ifdef BUG_KIND
		return mcpw_error(MCPW_INTERNAL, "no such item");
#else
		return mcpw_error(MCPW_NOT_FOUND, "no such item");
#endif
	}
	const char *text = texts[i];
#ifdef BUG_STATE
	static int reads;
	static char counted[8];
	if (i == 0) {
		reads++;
		memcpy(counted, "alph", 4);
		counted[4] = (char)('0' + reads % 10); /* same size, other bytes */
		text = counted;
	}
#endif
	mcpw_out("{\"contents\":[{\"uri\":");
	mcpw_out_json_cstr(uri);
	mcpw_out(",\"mimeType\":\"text/plain\",\"text\":");
	mcpw_out_json_cstr(text);
	mcpw_out("}]}");
	free(uri);
	return mcpw_ok();
}

MCPW_EXPORT(complete) int32_t fix_complete(int32_t in_len) {
	char *value = member(in_len, "argument.value");
	mcpw_out("{\"values\":[");
	int n = 0;
	for (int i = 0; i < N; i++) {
		if (value && strncmp(ids[i], value, strlen(value)) != 0)
			continue;
		mcpw_out_printf("%s\"%s\"", n++ ? "," : "", ids[i]);
	}
	mcpw_out("]}");
	free(value);
	return mcpw_ok();
}

MCPW_EXPORT(changes) int32_t fix_changes(int32_t in_len) {
	char *cursor = member(in_len, "cursor");
#ifdef BUG_CURSOR
	/* The cursor logs every poll: it grows until the host refuses it. */
	mcpw_out("{\"cursor\":\"v");
	if (cursor)
		mcpw_out(cursor + 1);
	mcpw_out("x\",\"updated\":[\"" PREFIX "a\"]}");
#else
	mcpw_out("{\"cursor\":\"v1\"}");
#endif
	free(cursor);
	return mcpw_ok();
}
