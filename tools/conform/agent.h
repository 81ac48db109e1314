/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The conformance suite's agent protocol (Documentation/metaroce/
 * conformance.rst, "The agent protocol"): helpers both agents (kside
 * --agent for a kernel QP, conform-agent for the reference peer) and the
 * runner share.  A request is one line, a verb and key=value fields; the
 * answer is one line, "OK" or "ERR", and key=value fields.
 */
#ifndef CONFORM_AGENT_H
#define CONFORM_AGENT_H

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define AGENT_LINE	16384		/* longest line either way */
#define AGENT_REGION	65536		/* bytes of the target's region */

/* the value of @key in @line (" key=value"), as a number; false if absent */
static inline bool agent_u64(const char *line, const char *key, uint64_t *v)
{
	char pat[40];
	const char *p;
	size_t n;

	n = snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(line, pat);
	if (!p || n >= sizeof(pat))
		return false;
	*v = strtoull(p + n, NULL, 0);
	return true;
}

/* the value of @key as a word into @out; false if absent */
static inline bool agent_word(const char *line, const char *key, char *out,
			      size_t room)
{
	char pat[40];
	const char *p;
	size_t i = 0, n;

	n = snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(line, pat);
	if (!p || n >= sizeof(pat) || !room)
		return false;
	for (p += n; *p && *p != ' ' && *p != '\n' && i + 1 < room; p++)
		out[i++] = *p;
	out[i] = 0;
	return true;
}

/* a line buffered from a stream socket */
struct agent_conn {
	int fd;
	char buf[AGENT_LINE];
	size_t len;
};

/*
 * The next line (without its newline) into @out: 1, 0 when none came
 * within @ms (-1: wait), -1 when the stream ended or failed
 */
static inline int agent_getline(struct agent_conn *c, char *out, size_t room,
				int ms)
{
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
	char *nl;
	size_t l;
	ssize_t n;

	for (;;) {
		nl = memchr(c->buf, '\n', c->len);
		if (nl) {
			l = nl - c->buf;
			if (l >= room)
				l = room - 1;
			memcpy(out, c->buf, l);
			out[l] = 0;
			c->len -= nl + 1 - c->buf;
			memmove(c->buf, nl + 1, c->len);
			return 1;
		}
		if (c->len == sizeof(c->buf))
			return -1;
		if (poll(&pfd, 1, ms) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (!(pfd.revents & (POLLIN | POLLHUP | POLLERR)))
			return 0;
		n = read(c->fd, c->buf + c->len, sizeof(c->buf) - c->len);
		if (n <= 0)
			return -1;
		c->len += n;
	}
}

static inline int agent_put(struct agent_conn *c, const char *s)
{
	size_t off = 0, len = strlen(s);
	ssize_t n;

	while (off < len) {
		n = write(c->fd, s + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		off += n;
	}
	return 0;
}

/* hex of @len bytes at @p into @out (2 * @len + 1 bytes) */
static inline void agent_hex(const uint8_t *p, size_t len, char *out)
{
	static const char d[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < len; i++) {
		out[2 * i] = d[p[i] >> 4];
		out[2 * i + 1] = d[p[i] & 15];
	}
	out[2 * len] = 0;
}

/* bytes of the hex string @s into @out (at most @room); count or -1 */
static inline int agent_unhex(const char *s, uint8_t *out, size_t room)
{
	size_t i = 0;
	unsigned int v;

	while (s[0] && s[0] != ' ' && s[1]) {
		if (i == room || sscanf(s, "%2x", &v) != 1)
			return -1;
		out[i++] = v;
		s += 2;
	}
	return i;
}

#endif /* CONFORM_AGENT_H */
