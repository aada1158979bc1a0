/* t4_results.c — T4 results written and read back (t4_results.h). */
#include "t4_results.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bounded_fmt.h"
#include "file_atomic.h"
#include "input_file.h"
#include "sha256.h"

static json_t *value_json(const t1_value *v)
{
    switch (v->type) {
    case T1_INT: return json_integer(v->i);
    case T1_FLOAT: return json_real(v->f);
    case T1_BOOL: return json_boolean(v->i);
    case T1_STRING: return json_stringn(v->s, v->len);
    default: return json_null();
    }
}

static void iso_time(double t, char *buf, size_t cap)
{
    time_t s = (time_t)t;
    struct tm tm;
    gmtime_r(&s, &tm);
    char base[32];
    strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
    bfmt(buf, cap, "%s.%06dZ", base, (int)((t - (double)s) * 1e6));
}

static json_t *result_json(const tune_space *sp, const tune_result *r)
{
    const t1_spec *s = sp->spec;
    uint32_t idx[T1_SPEC_PARAMS_MAX];
    tune_space_decode(sp, r->raw, idx);
    json_t *cfg = json_object();
    for (size_t k = 0; k < s->n_params; k++)
        json_object_set_new(cfg, s->params[k].name, value_json(&s->params[k].values[idx[k]]));
    json_t *runs = json_array();
    for (uint32_t i = 0; i < r->n_runs; i++)
        json_array_append_new(runs, json_real(r->runs_ns[i] * 1e-9));
    json_t *times = json_pack("{s:f,s:o,s:f,s:f,s:f}", "compilation_time", r->compile_s,
                              "runtimes", runs, "framework", r->load_s, "search_algorithm",
                              r->framework_s, "validation", r->validation_s);
    char ts[64];
    iso_time(r->timestamp, ts, sizeof ts);
    json_t *o = json_pack("{s:s,s:o,s:[s],s:o,s:s,s:f}", "timestamp", ts, "configuration", cfg,
                          "objectives", "time", "times", times, "invalidity",
                          tune_verdict_name(r->verdict), "correctness",
                          r->verdict == TUNE_CORRECT ? 1.0 : 0.0);
    json_t *meas = json_array();
    if (r->verdict == TUNE_CORRECT)
        json_array_append_new(meas, json_pack("{s:s,s:f,s:s}", "name", "time", "value",
                                              r->median_ns * 1e-6, "unit", "ms"));
    json_object_set_new(o, "measurements", meas);
    if (r->message)
        json_object_set_new(o, "clc_pack_message", json_string(r->message));
    return o;
}

int t4_results_write(const char *path, const tune_space *sp, const tune_results *rs,
                     const t4_run_info *info, char err[T4_ERR_MAX])
{
    char hex[65];
    clcpk_hex(sp->spec->sha256, 32, hex);
    json_t *results = json_array();
    for (size_t i = 0; i < rs->n; i++)
        json_array_append_new(results, result_json(sp, &rs->r[i]));
    json_t *root = json_pack("{s:s,s:o,s:{s:s,s:s,s:s,s:s,s:f,s:I,s:I}}", "schema_version", "1.0.0",
                             "results", results, "clc_pack", "spec", sp->spec->path,
                             "spec_sha256", hex, "device", info->device, "strategy",
                             info->strategy, "wall_s", info->wall_s, "valid_configurations",
                             (json_int_t)sp->n_valid, "raw_configurations", (json_int_t)sp->n_raw);
    return t4_json_write(path, root, err);
}

int t4_json_write(const char *path, json_t *root, char err[T4_ERR_MAX])
{
    char *text = root ? json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(root);
    if (!text) {
        bfmt(err, T4_ERR_MAX, "%s: out of memory making the results", path);
        return -1;
    }
    clcpack_error e;
    size_t len = strlen(text);
    text[len] = '\n';
    clcpack_status st = clcpk_write_file_atomic(path, text, len + 1, &e);
    free(text);
    if (st != CLCPACK_OK) {
        bfmt(err, T4_ERR_MAX, "%s", e.message);
        return -1;
    }
    return 0;
}

static int verdict_of(const char *name)
{
    for (int v = TUNE_CORRECT; v <= TUNE_TIMEOUT; v++)
        if (strcmp(tune_verdict_name((tune_verdict)v), name) == 0)
            return v;
    return -1;
}

/* The configuration of a result as value indices; -1 when it names
 * values the spec does not have (a stale file: skipped). */
static int config_of(const tune_space *sp, json_t *cfg, uint32_t *idx)
{
    const t1_spec *s = sp->spec;
    if (!json_is_object(cfg) || json_object_size(cfg) != s->n_params)
        return -1;
    for (size_t k = 0; k < s->n_params; k++) {
        json_t *v = json_object_get(cfg, s->params[k].name);
        if (!v)
            return -1;
        char *text = json_dumps(v, JSON_ENCODE_ANY);
        json_t *mine = NULL;
        uint32_t i = 0;
        for (; text && i < s->params[k].n_values; i++) {
            mine = value_json(&s->params[k].values[i]);
            int same = json_equal(mine, v);
            json_decref(mine);
            if (same)
                break;
        }
        free(text);
        if (i == s->params[k].n_values)
            return -1;
        idx[k] = i;
    }
    return 0;
}

int t4_results_read(const char *path, const tune_space *sp, const char *device, tune_results *rs,
                    const char **why, char err[T4_ERR_MAX])
{
    *why = NULL;
    if (access(path, F_OK) != 0) {
        *why = "no earlier results";
        return 0;
    }
    char *text = NULL;
    size_t size = 0;
    char e[600];
    if (in_read_all(path, 1u << 30, &text, &size, e, sizeof e) != 0) {
        bfmt(err, T4_ERR_MAX, "%s", e);
        return -1;
    }
    json_error_t je;
    json_t *root = json_loadb(text, size, 0, &je);
    free(text);
    if (!root) {
        bfmt(err, T4_ERR_MAX, "%s:%d:%d: not JSON: %s (remove it, or give --t4 another file)",
             path, je.line, je.column, je.text);
        return -1;
    }
    json_t *meta = json_object_get(root, "clc_pack");
    json_t *results = json_object_get(root, "results");
    const char *sha = json_string_value(json_object_get(meta, "spec_sha256"));
    const char *dev = json_string_value(json_object_get(meta, "device"));
    int rc = 0;
    char hex[65];
    clcpk_hex(sp->spec->sha256, 32, hex);
    if (!json_is_array(results) || !sha || !dev) {
        bfmt(err, T4_ERR_MAX, "%s: not a results file of clc-pack tune (no clc_pack.spec_sha256); "
             "remove it, or give --t4 another file", path);
        rc = -1;
    } else if (device && strcmp(sha, hex) != 0) {
        *why = "the earlier results are of another version of the spec";
    } else if (device && strcmp(dev, device) != 0) {
        *why = "the earlier results are of another device";
    } else {
        size_t i;
        json_t *r;
        json_array_foreach(results, i, r) {
            uint32_t idx[T1_SPEC_PARAMS_MAX];
            int v = verdict_of(json_string_value(json_object_get(r, "invalidity")) ?
                               json_string_value(json_object_get(r, "invalidity")) : "");
            if (v < 0 || config_of(sp, json_object_get(r, "configuration"), idx) != 0)
                continue;
            tune_result res;
            memset(&res, 0, sizeof res);
            res.raw = tune_space_encode(sp, idx);
            if (tune_space_find(sp, res.raw) < 0)
                continue;
            res.verdict = (tune_verdict)v;
            json_t *times = json_object_get(r, "times");
            res.compile_s = json_number_value(json_object_get(times, "compilation_time"));
            res.load_s = json_number_value(json_object_get(times, "framework"));
            res.validation_s = json_number_value(json_object_get(times, "validation"));
            json_t *runs = json_object_get(times, "runtimes");
            double buf[TUNE_PROTO_RUNS_MAX];
            size_t k;
            json_t *x;
            json_array_foreach(runs, k, x) {
                if (k < TUNE_PROTO_RUNS_MAX)
                    buf[res.n_runs++] = json_number_value(x) * 1e9;
            }
            res.runs_ns = buf;
            res.median_ns = INFINITY;
            json_t *m = json_array_get(json_object_get(r, "measurements"), 0);
            if (res.verdict == TUNE_CORRECT)
                res.median_ns = json_number_value(json_object_get(m, "value")) * 1e6;
            res.message = (char *)json_string_value(json_object_get(r, "clc_pack_message"));
            res.resumed = 1;
            if (tune_results_add(rs, &res) != 0) {
                bfmt(err, T4_ERR_MAX, "out of memory");
                rc = -1;
                break;
            }
        }
        if (rc == 0)
            rc = 1;
    }
    json_decref(root);
    return rc;
}
