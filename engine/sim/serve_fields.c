/* serve_fields: every member of struct serve_report described once, in the
 * order of `mlviz infer --serve DURATION --format json` (a contract). */
#include <stddef.h>

#include "serve.h"

#define MEMBER_SIZE(m)               sizeof(((struct serve_report *)0)->m)
#define NUM(key, member, unit, help) ROW(key, member, REPORT_NUM, unit, help)
#define TEXT(key, member, help)      ROW(key, member, REPORT_TEXT, "", help)
#define MEMBER_SIZE(m)               sizeof(((struct serve_report *)0)->m)
#define ROW(key, member, type, unit, help)                                                         \
    {                                                                                              \
        key, offsetof(struct serve_report, member), MEMBER_SIZE(member), type, unit, help          \
    }

/* `mlviz infer --serve DURATION --format json`, in this order. */
const struct report_field serve_report_fields[] = {
    {"name", 0, 0, REPORT_SETUP_NAME, "", "the setup's name"},
    ROW("ran", ran, REPORT_BOOL, "", "false when the deployment cannot serve (why_not)"),
    TEXT("why_not", why_not, "why it cannot serve, empty when it can"),
    NUM("duration_s", duration_s, "s", "simulated time"),
    NUM("arrival_rate", arrival_rate, "requests/s", "Poisson arrivals to the whole deployment"),
    NUM("arrived", arrived, "requests", "requests that arrived"),
    NUM("completed", completed, "requests", "requests whose last token came out"),
    NUM("turned_away", turned_away, "requests", "requests the full queue turned away"),
    NUM("steps", steps, "", "engine steps of one replica"),
    NUM("output_tokens_per_s", output_tokens_per_s, "tokens/s", "completed output, deployment"),
    NUM("requests_per_s", requests_per_s, "requests/s", "completed requests, deployment"),
    NUM("ttft_p50_s", ttft_p50_s, "s", "time to first token, median (queueing included)"),
    NUM("ttft_p99_s", ttft_p99_s, "s", "time to first token, 99th percentile"),
    NUM("tpot_p50_s", tpot_p50_s, "s", "time per output token after the first, median"),
    NUM("tpot_p99_s", tpot_p99_s, "s", "time per output token, 99th percentile"),
    NUM("latency_p50_s", latency_p50_s, "s", "arrival to last token, median"),
    NUM("latency_p99_s", latency_p99_s, "s", "arrival to last token, 99th percentile"),
    NUM("slo_attainment", slo_attainment, "", "completed requests within both objectives"),
    NUM("mean_batch", mean_batch, "sequences", "running sequences per step"),
    NUM("mean_queue", mean_queue, "requests", "waiting requests per step"),
    ROW("overloaded", overloaded, REPORT_BOOL, "", "more traffic than the deployment serves"),
    ROW("stopped_early", stopped_early, REPORT_BOOL, "",
        "the step ceiling ended the run before its duration"),
};
const size_t serve_report_field_count = sizeof serve_report_fields / sizeof serve_report_fields[0];
