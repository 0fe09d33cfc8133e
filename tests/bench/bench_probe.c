/* bench_probe: the probe's readers on large inputs, in CPU milliseconds (the
 * machine may be shared). Prints `cpuinfo_35mb_ms: N`: a fake /proc of
 * 450,000 processors (35 MB, 2 sockets of 16,384 cores) read by
 * probe_read_host. While cores were compared pairwise a file
 * like this took 22 s; hashed it is linear. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "probe.h"

enum { PROCESSORS = 450000, CORES = 16384 };

/* Writes DIR/cpuinfo and DIR/meminfo; false on failure. */
static bool write_proc(const char *dir)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/cpuinfo", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    for (int i = 0; i < PROCESSORS; i++)
        fprintf(f,
                "processor\t: %d\nmodel name\t: Bench CPU\nphysical id\t: %d\ncore id\t\t: "
                "%d\nflags\t\t: fpu vme de pse\n\n",
                i, i / (PROCESSORS / 2), i % CORES);
    bool ok = fclose(f) == 0;
    snprintf(path, sizeof path, "%s/meminfo", dir);
    f = fopen(path, "w");
    if (!f)
        return false;
    fputs("MemTotal:       16000000 kB\n", f);
    return fclose(f) == 0 && ok;
}

int main(void)
{
    char dir[1024], path[1100], err[512];
    const char *tmpdir = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/mlviz-bench-probe-XXXXXX", tmpdir && tmpdir[0] ? tmpdir : "/tmp");
    if (!mkdtemp(dir))
        return 1;
    static struct probe_machine m;
    bool ok = write_proc(dir);
    struct bench_clock t0 = bench_now();
    ok = ok && probe_read_host(&m, dir, "/nonexistent-sys", err, sizeof err);
    struct bench_clock dt = bench_since(t0);
    snprintf(path, sizeof path, "%s/cpuinfo", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/meminfo", dir);
    unlink(path);
    rmdir(dir);
    if (!ok || m.sockets != 2 || m.cores_per_socket != CORES) {
        fprintf(stderr, "bench_probe: read %d sockets x %d cores: %s\n", m.sockets,
                m.cores_per_socket, ok ? "wrong counts" : err);
        return 1;
    }
    bench_ms("cpuinfo_35mb_ms", dt, 1);
    return 0;
}
