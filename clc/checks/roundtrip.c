/* roundtrip.c — a binary comes back as the same program (roundtrip.h). */
#include "roundtrip.h"

#include <stdlib.h>
#include <string.h>

#include "bounded_fmt.h"
#include "cl_error_name.h"
#include "strbuf.h"

#define NAMES_MAX (1u << 20)
#define SIG_MAX (8u << 20)

/* The signature text, bounded: past SIG_MAX it is refused as too large. */
static void sig_add(strbuf *b, const char *s)
{
    size_t n = strlen(s);
    if (b->len + n + 1 > SIG_MAX)
        b->failed = 1;
    sb_put(b, s, n);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int roundtrip_kernel_names(cl_program prog, char ***names, size_t *n, char msg[ROUNDTRIP_MSG_MAX])
{
    *names = NULL;
    *n = 0;
    size_t size = 0;
    cl_int rc = clGetProgramInfo(prog, CL_PROGRAM_KERNEL_NAMES, 0, NULL, &size);
    if (rc != CL_SUCCESS || size == 0 || size > NAMES_MAX) {
        char cl[CLCPK_CL_ERROR_MAX];
        bfmt(msg, ROUNDTRIP_MSG_MAX, "CL_PROGRAM_KERNEL_NAMES: %s, %zu bytes",
             clcpk_cl_error_name(rc, cl, sizeof cl), size);
        return -1;
    }
    char *text = malloc(size + 1);
    if (!text) {
        bfmt(msg, ROUNDTRIP_MSG_MAX, "out of memory");
        return -1;
    }
    rc = clGetProgramInfo(prog, CL_PROGRAM_KERNEL_NAMES, size, text, NULL);
    if (rc != CL_SUCCESS) {
        free(text);
        char cl[CLCPK_CL_ERROR_MAX];
        bfmt(msg, ROUNDTRIP_MSG_MAX, "CL_PROGRAM_KERNEL_NAMES failed with %s",
             clcpk_cl_error_name(rc, cl, sizeof cl));
        return -1;
    }
    text[size] = '\0';
    size_t count = 1;
    for (char *c = text; *c; c++)
        count += *c == ';';
    char **v = calloc(count, sizeof *v);
    if (!v) {
        free(text);
        bfmt(msg, ROUNDTRIP_MSG_MAX, "out of memory");
        return -1;
    }
    size_t k = 0;
    char *save = NULL;
    for (char *tok = strtok_r(text, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
        if (!*tok)
            continue;
        v[k] = strdup(tok);
        if (!v[k]) {
            for (size_t i = 0; i < k; i++)
                free(v[i]);
            free(v);
            free(text);
            bfmt(msg, ROUNDTRIP_MSG_MAX, "out of memory");
            return -1;
        }
        k++;
    }
    free(text);
    qsort(v, k, sizeof *v, cmp_str);
    *names = v;
    *n = k;
    return 0;
}

/* One argument's info, or "?" where the driver does not give it. */
static void arg_info(cl_kernel k, cl_uint i, strbuf *b)
{
    char num[64];
    cl_kernel_arg_address_qualifier aq;
    cl_kernel_arg_access_qualifier acc;
    cl_kernel_arg_type_qualifier tq;
    if (clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof aq, &aq, NULL) ==
        CL_SUCCESS)
        bfmt(num, sizeof num, "a%x", (unsigned)aq);
    else
        bfmt(num, sizeof num, "a?");
    sig_add(b, num);
    if (clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof acc, &acc, NULL) ==
        CL_SUCCESS)
        bfmt(num, sizeof num, " x%x", (unsigned)acc);
    else
        bfmt(num, sizeof num, " x?");
    sig_add(b, num);
    if (clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof tq, &tq, NULL) ==
        CL_SUCCESS)
        bfmt(num, sizeof num, " q%lx", (unsigned long)tq);
    else
        bfmt(num, sizeof num, " q?");
    sig_add(b, num);
    const cl_kernel_arg_info text_fields[] = {CL_KERNEL_ARG_TYPE_NAME, CL_KERNEL_ARG_NAME};
    for (size_t f = 0; f < 2; f++) {
        char val[512];
        size_t got = 0;
        sig_add(b, " ");
        if (clGetKernelArgInfo(k, i, text_fields[f], sizeof val - 1, val, &got) == CL_SUCCESS &&
            got <= sizeof val - 1) {
            val[got] = '\0';
            sig_add(b, val);
        } else {
            sig_add(b, "?");
        }
    }
}

char *roundtrip_signature(cl_program prog, char msg[ROUNDTRIP_MSG_MAX])
{
    char **names;
    size_t n;
    if (roundtrip_kernel_names(prog, &names, &n, msg) != 0)
        return NULL;
    strbuf b;
    sb_init(&b);
    int failed = 0;
    for (size_t i = 0; i < n && !failed; i++) {
        cl_int rc;
        cl_kernel k = clCreateKernel(prog, names[i], &rc);
        if (!k) {
            char cl[CLCPK_CL_ERROR_MAX];
            bfmt(msg, ROUNDTRIP_MSG_MAX, "clCreateKernel(%s) failed with %s", names[i],
                 clcpk_cl_error_name(rc, cl, sizeof cl));
            failed = 1;
            break;
        }
        cl_uint nargs = 0;
        rc = clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL);
        if (rc != CL_SUCCESS) {
            char cl[CLCPK_CL_ERROR_MAX];
            bfmt(msg, ROUNDTRIP_MSG_MAX, "CL_KERNEL_NUM_ARGS of %s failed with %s", names[i],
                 clcpk_cl_error_name(rc, cl, sizeof cl));
            clReleaseKernel(k);
            failed = 1;
            break;
        }
        char head[64];
        sig_add(&b, names[i]);
        bfmt(head, sizeof head, "(%u)", (unsigned)nargs);
        sig_add(&b, head);
        for (cl_uint a = 0; a < nargs; a++) {
            sig_add(&b, a ? "; " : " ");
            arg_info(k, a, &b);
        }
        sig_add(&b, "\n");
        clReleaseKernel(k);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    sb_put(&b, "", 1);
    if (!failed && b.failed)
        bfmt(msg, ROUNDTRIP_MSG_MAX, "the program's kernel signatures are too large");
    if (failed || b.failed) {
        sb_free(&b);
        return NULL;
    }
    return (char *)b.data;
}

/* Two fields that differ only where one side is "?" are the same: a driver
 * may give argument info for a source build and not for a binary. */
static int same_known(const char *a, const char *b)
{
    while (*a && *b) {
        size_t la = strcspn(a, " ;\n()"), lb = strcspn(b, " ;\n()");
        int a_unknown = la == 1 && a[0] == '?', b_unknown = lb == 1 && b[0] == '?';
        int a_q = la >= 2 && a[1] == '?', b_q = lb >= 2 && b[1] == '?';
        if (!(a_unknown || b_unknown || a_q || b_q) && (la != lb || memcmp(a, b, la) != 0))
            return 0;
        a += la;
        b += lb;
        if (*a != *b)
            return 0;
        if (*a) {
            a++;
            b++;
        }
    }
    return *a == *b;
}

/* The first line of sig (a kernel and its arguments), for the message. */
static void first_line(const char *sig, char *buf, size_t cap)
{
    size_t n = strcspn(sig, "\n");
    bfmt(buf, cap, "%.*s", (int)(n > 300 ? 300 : n), sig);
}

cl_program roundtrip_program_from_binary(cl_context ctx, cl_device_id dev, const char *options,
                                  const unsigned char *bin, size_t size, char msg[ROUNDTRIP_MSG_MAX])
{
    cl_int rc, status = CL_SUCCESS;
    const unsigned char *ptrs[1] = {bin};
    cl_program prog = clCreateProgramWithBinary(ctx, 1, &dev, &size, ptrs, &status, &rc);
    if (!prog || rc != CL_SUCCESS || status != CL_SUCCESS) {
        char cl[CLCPK_CL_ERROR_MAX];
        bfmt(msg, ROUNDTRIP_MSG_MAX, "the driver refused the binary: clCreateProgramWithBinary gave %s",
             clcpk_cl_error_name(rc != CL_SUCCESS ? rc : status, cl, sizeof cl));
        if (prog)
            clReleaseProgram(prog);
        return NULL;
    }
    rc = clBuildProgram(prog, 1, &dev, options, NULL, NULL);
    if (rc != CL_SUCCESS) {
        char cl[CLCPK_CL_ERROR_MAX];
        bfmt(msg, ROUNDTRIP_MSG_MAX, "the program made from the binary did not build: %s",
             clcpk_cl_error_name(rc, cl, sizeof cl));
        clReleaseProgram(prog);
        return NULL;
    }
    return prog;
}

int roundtrip_compare(const char *expect, cl_program prog, char msg[ROUNDTRIP_MSG_MAX])
{
    char *got = roundtrip_signature(prog, msg);
    if (!got)
        return 1;
    int rc2 = 0;
    if (!same_known(expect, got)) {
        /* Name the first kernel whose line differs. */
        const char *a = expect, *b = got;
        while (*a && *b) {
            size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
            char x[320], y[320];
            bfmt(x, sizeof x, "%.*s", (int)la, a);
            bfmt(y, sizeof y, "%.*s", (int)lb, b);
            if (!same_known(x, y))
                break;
            a += la + (a[la] != 0);
            b += lb + (b[lb] != 0);
        }
        char x[320], y[320];
        first_line(a, x, sizeof x);
        first_line(b, y, sizeof y);
        bfmt(msg, ROUNDTRIP_MSG_MAX, "the program made from the binary differs from the source build: "
                              "source has '%s', binary has '%s'",
             x[0] ? x : "(no more kernels)", y[0] ? y : "(no more kernels)");
        rc2 = 1;
    }
    free(got);
    return rc2;
}
