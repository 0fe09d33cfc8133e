/* cli_run_child (tui/cli/child.c): a helper program with one deadline over
 * its output and its exit, in a process group that is killed whole. Each
 * case runs a small sh script; a script that records process ids writes
 * them to a file the test reads back to check that none is left. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static char pid_file[1024];

/* Is process pid gone? (Not alive; mlviz reaps what it kills, so not a
 * zombie either once cli_run_child returns.) */
static bool gone(long pid)
{
    return kill((pid_t)pid, 0) != 0;
}

/* The process ids the script wrote to pid_file: how many were read. */
static int read_pids(long *pids, int max)
{
    FILE *f = fopen(pid_file, "r");
    int n = 0;
    while (f && n < max && fscanf(f, "%ld", &pids[n]) == 1)
        n++;
    if (f)
        fclose(f);
    return n;
}

static void run_sh(const char *script, int timeout_ms, size_t max, struct cli_child *res)
{
    const char *argv[] = {"/bin/sh", "-c", script, pid_file, NULL};
    FILE *f = fopen(pid_file, "w");
    if (f)
        fclose(f);
    cli_run_child(argv, timeout_ms, max, res);
}

static void test_output_and_exit_status(void **state)
{
    (void)state;
    struct cli_child res;
    const char *argv[] = {"/bin/sh", "-c", "printf 'a,b\\n'; exit 0", NULL};
    assert_true(cli_run_child(argv, 5000, 1024, &res));
    assert_int_equal(res.end, CHILD_DONE);
    assert_string_equal(res.out, "a,b\n");
    assert_false(res.leftovers);
    free(res.out);
    const char *fails[] = {"/bin/sh", "-c", "echo partial; exit 9", NULL};
    assert_false(cli_run_child(fails, 5000, 1024, &res));
    assert_int_equal(res.end, CHILD_DONE);
    assert_int_equal(res.exit_status, 9);
    free(res.out);
    const char *missing[] = {"/nonexistent/mlviz-no-such-tool", NULL};
    assert_false(cli_run_child(missing, 5000, 1024, &res));
    assert_int_equal(res.end, CHILD_NOT_RUN);
    free(res.out);
}

/* Output closed, never exits, a child beside it: both killed at the
 * deadline, and reaped. */
static void test_hung_group_killed_at_the_deadline(void **state)
{
    (void)state;
    struct cli_child res;
    run_sh("exec >&-; sleep 30 & echo $$ $! >\"$0\"; wait", 300, 1024, &res);
    assert_int_equal(res.end, CHILD_TIMED_OUT);
    assert_false(res.unreaped);
    long pids[2];
    assert_int_equal(read_pids(pids, 2), 2);
    assert_true(gone(pids[0]));
    assert_true(gone(pids[1]));
    free(res.out);
}

/* Exits, but a background child keeps the output open: used, the child
 * killed and reported. */
static void test_leftover_child_killed(void **state)
{
    (void)state;
    struct cli_child res;
    run_sh("echo done; sleep 30 & echo $! >\"$0\"; exit 0", 10000, 1024, &res);
    assert_int_equal(res.end, CHILD_DONE);
    assert_int_equal(res.exit_status, 0);
    assert_true(res.leftovers);
    assert_string_equal(res.out, "done\n");
    long pid;
    assert_int_equal(read_pids(&pid, 1), 1);
    assert_true(gone(pid));
    free(res.out);
}

/* More output than allowed: stopped at the limit, killed. */
static void test_too_much_output(void **state)
{
    (void)state;
    struct cli_child res;
    run_sh("while :; do echo xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx; done", 10000, 4096, &res);
    assert_int_equal(res.end, CHILD_TOO_MUCH);
    assert_int_equal(res.len, 4096);
    assert_int_equal(strlen(res.out), 4096);
    free(res.out);
}

int main(void)
{
    const char *tmpdir = getenv("TMPDIR");
    snprintf(pid_file, sizeof pid_file, "%s/mlviz-test-child-XXXXXX",
             tmpdir && tmpdir[0] ? tmpdir : "/tmp");
    int fd = mkstemp(pid_file);
    if (fd < 0)
        return 1;
    close(fd);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_output_and_exit_status),
        cmocka_unit_test(test_hung_group_killed_at_the_deadline),
        cmocka_unit_test(test_leftover_child_killed),
        cmocka_unit_test(test_too_much_output),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    unlink(pid_file);
    return failed;
}
