/* Dependency files (clc/run/depfile.h): the rule's text, escaping of the
 * characters make treats specially, repeats dropped, the atomic write. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "depfile.h"

int main(void)
{
    depfile_list l;
    depfile_init(&l);
    depfile_add(&l, "k/manifest.txt");
    depfile_add(&l, "./k/a b.cl");
    depfile_add(&l, "k/a b.cl");
    depfile_add(&l, "k/$x#y.h");
    depfile_add(&l, "k/back\\ slash.h");
    CHECK(l.n == 4, "a repeat (also with ./) is dropped: %zu paths", l.n);
    size_t len = 0;
    char *t = depfile_format(&l, "out/p q.clcpack", &len);
    const char *want = "out/p\\ q.clcpack: \\\n"
                       " k/manifest.txt \\\n"
                       " k/a\\ b.cl \\\n"
                       " k/$$x\\#y.h \\\n"
                       " k/back\\\\\\ slash.h\n"
                       "\n"
                       "k/manifest.txt:\n"
                       "\n"
                       "k/a\\ b.cl:\n"
                       "\n"
                       "k/$$x\\#y.h:\n"
                       "\n"
                       "k/back\\\\\\ slash.h:\n";
    CHECK(t && strcmp(t, want) == 0 && len == strlen(want), "the rule:\n%s\nwanted:\n%s",
          t ? t : "(null)", want);
    free(t);

    depfile_list empty;
    depfile_init(&empty);
    t = depfile_format(&empty, "p", &len);
    CHECK(t && strcmp(t, "p:\n") == 0, "no prerequisites: 'p:' (%s)", t ? t : "(null)");
    free(t);

    char dir[] = "/tmp/test_depfile.XXXXXX";
    if (CHECK(mkdtemp(dir) != NULL, "temporary folder")) {
        char path[128], err[512];
        snprintf(path, sizeof path, "%s/p.d", dir);
        CHECK(depfile_write(&l, "p", path, err, sizeof err) == 0, "written: %s", err);
        FILE *f = fopen(path, "r");
        char first[64] = "";
        if (f) {
            if (!fgets(first, sizeof first, f))
                first[0] = '\0';
            fclose(f);
        }
        CHECK(strcmp(first, "p: \\\n") == 0, "the file holds the rule (%s)", first);
        snprintf(path, sizeof path, "%s/none/p.d", dir);
        CHECK(depfile_write(&l, "p", path, err, sizeof err) != 0 && strstr(err, "none/p.d"),
              "a folder that does not exist is an error naming the file: %s", err);
        snprintf(path, sizeof path, "%s/p.d", dir);
        unlink(path);
        rmdir(dir);
    }
    l.failed = 1;
    CHECK(depfile_format(&l, "p", &len) == NULL, "a list that ran out of memory gives no rule");
    depfile_free(&l);
    depfile_free(&empty);
    return check_summary();
}
