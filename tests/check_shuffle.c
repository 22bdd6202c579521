/* The shuffle service's requests (emul/shuffle.h): what a fetch and a
 * registration may say, and every way a peer can get them wrong; the map
 * output streams a reduce checks byte by byte; and a line written to a
 * peer that is slow to read arrives whole. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_hyde.h"
#include "core/util.h"
#include "emul/shuffle.h"

static const struct {
	const char *line;
	uint32_t job, reduce, n;
	uint32_t map0;
	uint64_t bytes0, bytes_last;
} req_ok[] = {
	{ "GET 0 0 1 0:0", 0, 0, 1, 0, 0, 0 },
	{ "GET 7 2 2 2:1000000 3:500000", 7, 2, 2, 2, 1000000, 500000 },
	{ "GET\t1  2\t 1 4294967295:9223372036854775807 ", 1, 2, 1, 4294967295u,
	  9223372036854775807ULL, 9223372036854775807ULL },
	{ "GET 4294967295 4294967295 3 1:1 2:2 3:3", 4294967295u, 4294967295u, 3, 1, 1, 3 },
};

START_TEST(req_good)
{
	char errbuf[HYDE_ERRBUF_SIZE] = "";
	struct shuffle_req r;
	const char *l = req_ok[_i].line;

	ck_assert_msg(shuffle_req_parse(l, strlen(l), &r, errbuf) == 0, "'%s': %s", l, errbuf);
	ck_assert_uint_eq(r.job, req_ok[_i].job);
	ck_assert_uint_eq(r.reduce, req_ok[_i].reduce);
	ck_assert_uint_eq(r.n_parts, req_ok[_i].n);
	ck_assert_uint_eq(r.parts[0].map, req_ok[_i].map0);
	ck_assert_uint_eq(r.parts[0].bytes, req_ok[_i].bytes0);
	ck_assert_uint_eq(r.parts[r.n_parts - 1].bytes, req_ok[_i].bytes_last);
	shuffle_req_free(&r);
}
END_TEST

static const struct {
	const char *line;
	const char *why; /* in the message */
} req_bad[] = {
	{ "", "expected 'GET'" },
	{ "get 1 2 1 0:1", "expected 'GET', got 'get'" },
	{ "GETS 1 2 1 0:1", "expected 'GET'" },
	{ "GET", "expected a job number, got ''" },
	{ "GET x 2 1 0:1", "expected a job number, got 'x'" },
	{ "GET -1 2 1 0:1", "expected a job number" },
	{ "GET 4294967296 2 1 0:1", "expected a job number" },
	{ "GET 1 2", "expected a count of partitions" },
	{ "GET 1 2 0", "0 partition(s) announced" },
	/* the count is checked against the line before any allocation */
	{ "GET 1 2 4000000000 0:1", "4000000000 partition(s) announced in a line that holds at most 2" },
	{ "GET 1 2 18446744073709551615 0:1", "expected a count of partitions" },
	{ "GET 1 2 2 0:1", "partition 2 of 2: expected MAP:BYTES, got ''" },
	{ "GET 1 2 1 0:1 1:1", "1 partition(s) announced, more given ('1:1')" },
	{ "GET 1 2 1 0", "partition 1 of 1: expected MAP:BYTES, got '0'" },
	{ "GET 1 2 1 :5", "partition 1 of 1" },
	{ "GET 1 2 1 5:", "partition 1 of 1" },
	{ "GET 1 2 1 5:1:2", "partition 1 of 1" },
	{ "GET 1 2 1 5:-2", "partition 1 of 1" },
	{ "GET 1 2 1 4294967296:1", "partition 1 of 1" },
	{ "GET 1 2 1 1:9223372036854775808", "partition 1 of 1" }, /* above 2^63 - 1 */
	{ "GET 1 2 1 1:99999999999999999999999", "partition 1 of 1" },
	{ "GET 1 2 1 \x01\x02:3", "got '??:3'" },
};

START_TEST(req_refused)
{
	char errbuf[HYDE_ERRBUF_SIZE] = "";
	struct shuffle_req r;
	const char *l = req_bad[_i].line;

	ck_assert_int_eq(shuffle_req_parse(l, strlen(l), &r, errbuf), -EINVAL);
	ck_assert_msg(strstr(errbuf, req_bad[_i].why), "'%s': got '%s', expected '%s'", l,
		      errbuf, req_bad[_i].why);
	ck_assert_ptr_null(r.parts);
}
END_TEST

START_TEST(req_not_terminated)
{
	/* the line is its bytes, not a C string: nothing past len is read
	 * (a NUL inside ends a word like any other wrong byte) */
	char buf[32], errbuf[HYDE_ERRBUF_SIZE];
	struct shuffle_req r;

	memcpy(buf, "GET 1 2 1 3:4XXXXXXXXX", 22);
	ck_assert_int_eq(shuffle_req_parse(buf, 13, &r, errbuf), 0);
	ck_assert_uint_eq(r.parts[0].bytes, 4);
	shuffle_req_free(&r);
	ck_assert_int_eq(shuffle_req_parse("GET 1 2 1 3:4\0 5", 16, &r, errbuf), -EINVAL);
}
END_TEST

START_TEST(req_many)
{
	/* a request as long as the service reads (~780 KB) */
	size_t cap = SHUFFLE_REQ_MAX, len;
	char *l = malloc(cap), errbuf[HYDE_ERRBUF_SIZE] = "";
	struct shuffle_req r;
	uint32_t i, n = 60000;

	len = (size_t)snprintf(l, cap, "GET 3 4 %u", n);
	for (i = 0; i < n && len < cap; i++)
		len += (size_t)snprintf(l + len, cap - len, " %u:%u", i, i * 7);
	ck_assert_uint_lt(len, cap);
	ck_assert_msg(shuffle_req_parse(l, len, &r, errbuf) == 0, "%s", errbuf);
	ck_assert_uint_eq(r.n_parts, n);
	ck_assert_uint_eq(r.parts[n - 1].map, n - 1);
	ck_assert_uint_eq(r.parts[n - 1].bytes, (uint64_t)(n - 1) * 7);
	shuffle_req_free(&r);
	free(l);
}
END_TEST

START_TEST(reg_lines)
{
	uint32_t j = 0, m = 0;

	ck_assert_int_eq(shuffle_reg_parse("reg 7 3", 7, &j, &m), 0);
	ck_assert_uint_eq(j, 7);
	ck_assert_uint_eq(m, 3);
	ck_assert_int_eq(shuffle_reg_parse("reg 4294967295 0", 16, &j, &m), 0);
	ck_assert_uint_eq(j, 4294967295u);
	ck_assert_int_eq(shuffle_reg_parse("reg 7", 5, &j, &m), -EINVAL);
	ck_assert_int_eq(shuffle_reg_parse("reg 7 x", 7, &j, &m), -EINVAL);
	ck_assert_int_eq(shuffle_reg_parse("reg 7 3 1", 9, &j, &m), -EINVAL);
	ck_assert_int_eq(shuffle_reg_parse("reg 4294967296 0", 16, &j, &m), -EINVAL);
	ck_assert_int_eq(shuffle_reg_parse("GET 7 3", 7, &j, &m), -EINVAL);
	ck_assert_int_eq(shuffle_reg_parse("", 0, &j, &m), -EINVAL);
}
END_TEST

START_TEST(stream_check)
{
	/* any offset can be made alone, and a wrong byte is found where it is */
	uint64_t key = shuffle_key(5, 7, 2, 1);
	uint8_t whole[1000], part[100];

	shuffle_fill(key, 0, whole, sizeof(whole));
	shuffle_fill(key, 333, part, sizeof(part));
	ck_assert_mem_eq(whole + 333, part, sizeof(part));
	ck_assert_uint_eq(shuffle_check(key, 0, whole, sizeof(whole)), sizeof(whole));
	whole[617] ^= 1;
	ck_assert_uint_eq(shuffle_check(key, 0, whole, sizeof(whole)), 617);
	ck_assert_uint_ne(shuffle_key(5, 7, 2, 1), shuffle_key(5, 7, 1, 2));
	ck_assert_uint_ne(shuffle_key(5, 7, 2, 1), shuffle_key(6, 7, 2, 1));
}
END_TEST

/* A task's report to a controller too busy to read (its socket full):
 * emul_write_all waits for room instead of failing with EAGAIN (a task
 * took that for "the controller is gone" and ended: an emulated run of
 * 640 containers failed so). */
START_TEST(write_all_waits_for_room)
{
	static char big[256 * 1024];
	char sink[65536];
	size_t filled = 0;
	int sv[2], st;
	pid_t pid;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	ck_assert_int_eq(emul_set_nonblock(sv[0]), 0);
	memset(big, 'x', sizeof(big));
	for (;;) { /* fill it */
		ssize_t n = send(sv[0], big, 4096, MSG_DONTWAIT);

		if (n < 0)
			break;
		filled += (size_t)n;
	}
	ck_assert_int_eq(errno, EAGAIN);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) { /* the slow reader: later, everything */
		size_t got = 0;
		ssize_t n;

		close(sv[0]);
		usleep(200000);
		while ((n = read(sv[1], sink, sizeof(sink))) > 0)
			got += (size_t)n;
		_exit(got == filled + sizeof(big) ? 0 : 1);
	}
	close(sv[1]);
	ck_assert_int_eq(emul_write_all(sv[0], big, sizeof(big)), 0);
	close(sv[0]);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}
END_TEST

Suite *shuffle_suite(void)
{
	Suite *s = suite_create("shuffle");
	TCase *tc = tcase_create("requests");

	tcase_add_loop_test(tc, req_good, 0, (int)(sizeof(req_ok) / sizeof(req_ok[0])));
	tcase_add_loop_test(tc, req_refused, 0, (int)(sizeof(req_bad) / sizeof(req_bad[0])));
	tcase_add_test(tc, req_not_terminated);
	tcase_add_test(tc, req_many);
	tcase_add_test(tc, reg_lines);
	tcase_add_test(tc, stream_check);
	tcase_add_test(tc, write_all_waits_for_room);
	suite_add_tcase(s, tc);
	return s;
}
