/*
 * kernel_source.c — the program text of a variant (kernel_source.h).
 *
 * The kernel's source is folded by source_fold.h with the kernels folder
 * as the only place files may come from; the names in its #line directives
 * are relative to that folder.
 */
#include "kernel_source.h"

#include "bounded_fmt.h"
#include "input_file.h"
#include "source_gen.h"
#include "source_fold.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int kernel_source_program_source(const manifest_file *m, const manifest_variant *v, char **text, size_t *len,
                      char name[MANIFEST_PATH_MAX], char err[MANIFEST_ERR_MAX])
{
    return kernel_source_program_source_files(m, v, text, len, name, err, NULL, NULL);
}

int kernel_source_program_source_files(const manifest_file *m, const manifest_variant *v, char **text, size_t *len,
                            char name[MANIFEST_PATH_MAX], char err[MANIFEST_ERR_MAX], kernel_source_file_fn on_file,
                            void *ctx)
{
    *text = NULL;
    *len = 0;
    err[0] = '\0';
    const manifest_kernel *k = v->kernel;
    if (k->generator[0] && !source_gen_known(k->generator)) {
        bfmt(err, MANIFEST_ERR_MAX, "%s: unknown generator '%s' (known: %s)", k->name, k->generator,
             source_gen_names());
        return -1;
    }
    const char *sources[1] = {k->source};
    const char *roots[1] = {"."};
    source_fold_options opt = {.base_dir = m->dir, .sources = sources, .n_sources = 1,
                      .roots = roots, .n_roots = 1, .roots_what = "the kernels folder"};
    source_fold_result folded;
    char why_fold[SOURCE_FOLD_ERR_MAX];
    if (source_fold(&opt, &folded, why_fold, sizeof why_fold) != 0) {
        bfmt(err, MANIFEST_ERR_MAX, "%s", why_fold);
        return -1;
    }
    /* The files are relative to the kernels folder: named as opened. */
    for (size_t i = 0; on_file && i < folded.n_files; i++) {
        char path[2 * MANIFEST_PATH_MAX + 2];
        if (folded.files[i][0] == '/')
            bfmt(path, sizeof path, "%s", folded.files[i]);
        else
            bfmt(path, sizeof path, "%s/%s", m->dir, folded.files[i]);
        on_file(ctx, path);
    }
    if (!k->generator[0]) {
        bfmt(name, MANIFEST_PATH_MAX, "%s", k->source);
        *text = folded.text;
        *len = folded.len;
        folded.text = NULL;
        source_fold_result_free(&folded);
        return 0;
    }
    char label[MANIFEST_PATH_MAX];
    char why[MANIFEST_ERR_MAX];
    char *generated;
    size_t generated_len;
    int rc = source_gen_generate(k->generator, k->source, folded.text, folded.len, v, &generated,
                         &generated_len, label, why, sizeof why);
    source_fold_result_free(&folded);
    if (rc != 0) {
        bfmt(err, MANIFEST_ERR_MAX, "%s: %s", k->source, why);
        return -1;
    }
    bfmt(name, MANIFEST_PATH_MAX, "%s[%s]", k->source, label);
    *text = generated;
    *len = generated_len;
    return 0;
}
