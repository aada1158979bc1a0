/* source_gen.c — the installed source generator (source_gen.h). */
#include "source_gen.h"

#include "bounded_fmt.h"

static const mf_generator *installed;

void source_gen_install(const mf_generator *g)
{
    installed = g;
}

int source_gen_known(const char *name)
{
    return installed && installed->known(name);
}

const char *source_gen_names(void)
{
    return installed ? installed->names() : "none";
}

int source_gen_generate(const char *generator, const char *tmpl_name, const char *tmpl, size_t tmpl_len,
                const manifest_variant *v, char **out, size_t *out_len, char label[MANIFEST_PATH_MAX],
                char *err, size_t errlen)
{
    if (!source_gen_known(generator)) {
        bfmt(err, errlen, "unknown generator '%s' (known: %s)", generator, source_gen_names());
        return -1;
    }
    return installed->generate(generator, tmpl_name, tmpl, tmpl_len, v, out, out_len, label, err,
                               errlen);
}
