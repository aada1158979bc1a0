/*
 * stub_binary.c — which binaries a device takes, as the real drivers
 * decide (README.md, "Binaries"), and the binaries the stub's own builds
 * make.
 *
 * Intel (NEO 22.43, compute-runtime's device_binary_format_*.cpp):
 *  - a zebin (ELF64, ET_REL or ET_ZEBIN_EXE, EM_INTELGT 205) is for the
 *    device when its .note.intelgt.compat notes name the device's product
 *    family (note 1) and GFXCORE family (note 2) where they give one, and
 *    its stepping lies in the note-3 revision range when that note asks;
 *  - a CL ELF (ET_OPENCL_EXECUTABLE 0xff04) is for the device when its
 *    patchtokens program (section type 0xff000005) names the device's
 *    GFXCORE family, version 1081 and 8-byte pointers;
 *  - an ar archive (ocloc's fat binary) is used through its member
 *    "64.<major>.<minor>.<revision>" of the device's IP version;
 *  - SPIR-V or LLVM bitcode is taken as IR, compiled by clBuildProgram;
 *  - a binary for another target that carries IR (a zebin's .spv section
 *    0xff000009, a CL ELF's SPIR-V 0xff000009 or LLVM 0xff000003 section)
 *    is not refused: NEO keeps the IR and compiles it at clBuildProgram
 *    (a JIT the application did not ask for; the log says how=ir). With
 *    CLCSTUB_INTEL_RECOMPILE=0 (NEO's DisableKernelRecompilation) it is
 *    refused instead. Without IR it is refused.
 * AMD (ROCm): an AMDGPU code object (ELF64, EM_AMDGPU 224, ELFOSABI_AMDGPU_HSA
 * 64, ABI version 1-3 for code objects v3-v5, ET_DYN) whose EF_AMDGPU_MACH
 * is the device's processor and whose xnack and sramecc settings fit the
 * device's (a setting of "any" fits both). Nothing else: no IL.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stub.h"
#include "stub_elf.h"

#define EM_INTELGT 205
#define EM_AMDGPU 224
#define ET_REL 1
#define ET_DYN 3
#define ET_ZEBIN_EXE 0xff12
#define ET_OPENCL_EXECUTABLE 0xff04
#define SHT_NOTE 7
#define SHT_SYMTAB 2
#define SHT_DYNSYM 11
#define SHT_OPENCL_LLVM_BINARY 0xff000003u
#define SHT_OPENCL_DEV_BINARY 0xff000005u
#define SHT_SPIRV 0xff000009u /* a CL ELF's SPIR-V section and a zebin's .spv */
#define PATCHTOKENS_VERSION 1081
#define ELFOSABI_AMDGPU_HSA 64
/* The section the stub's own binaries carry their kernels' parameters in. */
#define STUB_SECTION ".clcstub"
#define SHT_STUB 0x6fff4353u

/* ---- kernel names ---- */

static int add_kernel(void *ctx, const char *name, size_t n)
{
    return stub_kernels_add(ctx, name, n);
}

/* AMD code objects name each kernel's descriptor "<kernel>.kd". */
static int add_kd_symbol(void *ctx, const char *name, unsigned type)
{
    size_t n = strlen(name);
    if (type == 1 /* STT_OBJECT */ && n > 3 && strcmp(name + n - 3, ".kd") == 0)
        return stub_kernels_add(ctx, name, n - 3) != 0;
    return 0;
}

/* The parameters the stub's own builds recorded (STUB_SECTION: lines
 * "kernel NAME" then "arg DECL"). */
static void stub_args(const stub_elf *e, stub_kernel_list *k)
{
    stub_elf_section s;
    if (stub_elf_find(e, STUB_SECTION, &s) != 0 || !s.data)
        return;
    stub_kernel_desc *cur = NULL;
    for (size_t o = 0; o < s.size;) {
        const uint8_t *nl = memchr(s.data + o, '\n', s.size - o);
        size_t n = nl ? (size_t)(nl - (s.data + o)) : s.size - o;
        const char *line = (const char *)s.data + o;
        if (n > 7 && memcmp(line, "kernel ", 7) == 0) {
            cur = NULL;
            for (size_t i = 0; i < k->n; i++)
                if (strlen(k->k[i].name) == n - 7 && memcmp(k->k[i].name, line + 7, n - 7) == 0)
                    cur = &k->k[i];
            if (cur)
                cur->have_args = 1;
        } else if (cur && n > 4 && memcmp(line, "arg ", 4) == 0 && cur->n_args < STUB_MAX_ARGS) {
            char **grown = realloc(cur->arg_decl, (cur->n_args + 1) * sizeof *grown);
            if (grown) {
                cur->arg_decl = grown;
                if ((grown[cur->n_args] = strndup(line + 4, n - 4)))
                    cur->n_args++;
            }
        }
        o += n + 1;
    }
}

/* ---- Intel ---- */

/* A zebin: 1 for this device, 0 for another target, -1 malformed. */
static int zebin_fits(const stub_elf *e, const stub_intel_target *t, char *why, size_t cap)
{
    stub_elf_section s;
    uint32_t product = 0, core = 0, meta = 0;
    int have_meta = 0;
    for (unsigned i = 1; i < e->shnum; i++) {
        if (stub_elf_section_at(e, i, &s) != 0)
            return -1;
        if (s.type != SHT_NOTE || strcmp(s.name, ".note.intelgt.compat") != 0)
            continue;
        size_t off = 0;
        const char *owner;
        uint32_t owner_len, type, desc_len;
        const uint8_t *desc;
        int r;
        while ((r = stub_note_next(&s, &off, &owner, &owner_len, &type, &desc, &desc_len)) == 1) {
            if (owner_len != 8 || memcmp(owner, "IntelGT", 8) != 0 || desc_len != 4)
                continue;
            uint32_t v = (uint32_t)desc[0] | (uint32_t)desc[1] << 8 | (uint32_t)desc[2] << 16 |
                         (uint32_t)desc[3] << 24;
            if (type == 1)
                product = v;
            else if (type == 2)
                core = v;
            else if (type == 3) {
                meta = v;
                have_meta = 1;
            }
        }
        if (r < 0)
            return -1;
    }
    if (!product && !core) {
        snprintf(why, cap, "zebin names no product or core family");
        return 0;
    }
    if (product && product != t->product) {
        snprintf(why, cap, "zebin for product family %u, this device is %u (%s)", product,
                 t->product, t->name);
        return 0;
    }
    if (core && core != t->core) {
        snprintf(why, cap, "zebin for GFXCORE family %u, this device is %u (%s)", core, t->core,
                 t->name);
        return 0;
    }
    /* Target metadata: bits 8-12 lowest revision, 13 validate, 16-20 highest. */
    if (have_meta && (meta >> 13 & 1)) {
        uint32_t lo = meta >> 8 & 31, hi = meta >> 16 & 31;
        if (t->revision < lo || t->revision > hi) {
            snprintf(why, cap, "zebin for revisions %u-%u, this device is revision %u", lo, hi,
                     t->revision);
            return 0;
        }
    }
    return 1;
}

/* The section holding IR in an Intel ELF, if any. */
static int intel_ir(const stub_elf *e, stub_elf_section *ir)
{
    for (unsigned i = 1; i < e->shnum; i++)
        if (stub_elf_section_at(e, i, ir) == 0 && ir->data && ir->size &&
            (ir->type == SHT_SPIRV || ir->type == SHT_OPENCL_LLVM_BINARY))
            return 1;
    return 0;
}

/* Kernel names from IR: a SPIR-V module's entry points. */
static void ir_kernels(const uint8_t *b, size_t len, stub_kernel_list *k)
{
    unsigned major, minor;
    if (stub_spirv_is(b, len))
        stub_spirv_parse(b, len, &major, &minor, add_kernel, k);
}

static int intel_verdict(cl_device_id dev, const uint8_t *b, size_t len, stub_kernel_list *k,
                         char *why, size_t cap, int depth)
{
    const stub_intel_target *t = dev->intel;
    if (stub_ar_is(b, len)) {
        char member[48];
        const uint8_t *m;
        size_t msize;
        snprintf(member, sizeof member, "64.%u.%u.%u", CL_VERSION_MAJOR(t->ip_version),
                 CL_VERSION_MINOR(t->ip_version), CL_VERSION_PATCH(t->ip_version));
        int r = depth ? -1 : stub_ar_member(b, len, member, &m, &msize);
        if (r != 0) {
            snprintf(why, cap, r < 0 ? "malformed fat binary" : "fat binary has no member %s",
                     member);
            return 0;
        }
        return intel_verdict(dev, m, msize, k, why, cap, depth + 1);
    }
    if (stub_spirv_is(b, len) || stub_llvm_is(b, len)) {
        ir_kernels(b, len, k);
        snprintf(why, cap, "IR, compiled at build");
        return STUB_FROM_IR;
    }
    stub_elf e;
    if (stub_elf_open(&e, b, len) != 0) {
        snprintf(why, cap, "not a binary of this driver (no ELF64 header)");
        return 0;
    }
    if (e.machine == EM_AMDGPU) {
        snprintf(why, cap, "an AMDGPU code object on an Intel device");
        return 0;
    }
    int fits = -1;
    stub_elf_section s;
    if ((e.type == ET_REL || e.type == ET_ZEBIN_EXE) && e.machine == EM_INTELGT) {
        fits = zebin_fits(&e, t, why, cap);
        if (fits == 1) {
            for (unsigned i = 1; i < e.shnum; i++)
                if (stub_elf_section_at(&e, i, &s) == 0 && strncmp(s.name, ".text.", 6) == 0 &&
                    s.name[6])
                    stub_kernels_add(k, s.name + 6, strlen(s.name + 6));
            stub_args(&e, k);
        }
    } else if (e.type == ET_OPENCL_EXECUTABLE && e.machine == 0) {
        int have_dev = 0;
        for (unsigned i = 1; i < e.shnum && fits < 0; i++) {
            if (stub_elf_section_at(&e, i, &s) != 0 || s.type != SHT_OPENCL_DEV_BINARY)
                continue;
            have_dev = 1;
            stub_patchtokens h;
            if (stub_patchtokens_parse(s.data, s.size, &h, NULL, NULL) != 0) {
                snprintf(why, cap, "malformed patchtokens program");
                fits = 0;
            } else if (h.device != t->core || h.version != PATCHTOKENS_VERSION ||
                       h.pointer_size > 8) {
                snprintf(why, cap, "patchtokens for GFXCORE family %u (version %u), this device "
                         "is %u (%s)",
                         h.device, h.version, t->core, t->name);
                fits = 0;
            } else {
                stub_patchtokens_parse(s.data, s.size, &h, add_kernel, k);
                fits = 1;
            }
        }
        if (!have_dev) {
            snprintf(why, cap, "CL ELF without a device binary");
            fits = 0;
        }
    } else {
        snprintf(why, cap, "ELF type 0x%x machine %u is not an Intel GPU binary", e.type,
                 e.machine);
        return 0;
    }
    if (fits == 1)
        return STUB_FROM_BINARY;
    stub_elf_section ir;
    if (fits == 0 && intel_ir(&e, &ir)) {
        const char *recompile = stub_env("CLCSTUB_INTEL_RECOMPILE");
        if (!recompile || strcmp(recompile, "0") != 0) {
            stub_kernels_free(k);
            ir_kernels(ir.data, ir.size, k);
            size_t n = strlen(why);
            snprintf(why + n, cap - n, "; its IR is compiled at build");
            return STUB_FROM_IR;
        }
        size_t n = strlen(why);
        snprintf(why + n, cap - n, " (recompiling its IR is off: CLCSTUB_INTEL_RECOMPILE=0)");
    }
    if (fits < 0)
        snprintf(why, cap, "malformed Intel binary");
    stub_kernels_free(k);
    return 0;
}

/* ---- AMD ---- */

/* "on", "off", "any" or "unsupported" of a v4/v5 feature field. */
static const char *feature_name(uint32_t v)
{
    return v == 3 ? "+" : v == 2 ? "-" : v == 1 ? "any" : "unsupported";
}

/* Whether a v4 feature value (0 unsupported, 1 any, 2 off, 3 on) fits a
 * device setting. */
static int feature_fits(uint32_t v, int has, int dev)
{
    if (!has)
        return v == 0;
    if (v == 1 || dev == STUB_FEAT_ANY)
        return v != 0;
    return (v == 3 && dev == STUB_FEAT_ON) || (v == 2 && dev == STUB_FEAT_OFF);
}

static int amd_verdict(cl_device_id dev, const uint8_t *b, size_t len, stub_kernel_list *k,
                       char *why, size_t cap)
{
    const stub_amd_target *t = dev->amd;
    stub_elf e;
    if (stub_spirv_is(b, len) || stub_llvm_is(b, len)) {
        snprintf(why, cap, "IR is not a binary of this driver");
        return 0;
    }
    if (stub_elf_open(&e, b, len) != 0) {
        snprintf(why, cap, "not a binary of this driver (no ELF64 header)");
        return 0;
    }
    if (e.machine != EM_AMDGPU) {
        snprintf(why, cap, "ELF machine %u is not an AMDGPU code object%s", e.machine,
                 e.machine == EM_INTELGT || e.machine == 0 ? " (an Intel GPU binary)" : "");
        return 0;
    }
    if (e.osabi != ELFOSABI_AMDGPU_HSA || e.abi_version < 1 || e.abi_version > 3 ||
        e.type != ET_DYN) {
        snprintf(why, cap, "code object OS ABI %u version %u type %u is not an HSA code object "
                 "v3-v5",
                 e.osabi, e.abi_version, e.type);
        return 0;
    }
    uint32_t mach = e.flags & 0xff;
    const stub_amd_target *bt = stub_amd_by_mach(mach);
    uint32_t xnack, sramecc;
    if (e.abi_version == 1) { /* v3: bit set means on, clear means off */
        xnack = t->has_xnack ? ((e.flags & 0x100) ? 3 : 2) : 0;
        sramecc = t->has_sramecc ? ((e.flags & 0x200) ? 3 : 2) : 0;
    } else {
        xnack = (e.flags >> 8) & 3;
        sramecc = (e.flags >> 10) & 3;
    }
    if (mach != t->mach) {
        snprintf(why, cap, "code object for %s (mach 0x%x), this device is %s",
                 bt ? bt->name : "an unknown processor", mach, dev->name);
        return 0;
    }
    if (!feature_fits(xnack, t->has_xnack, dev->xnack) ||
        !feature_fits(sramecc, t->has_sramecc, dev->sramecc)) {
        snprintf(why, cap, "code object for %s with xnack %s and sramecc %s, this device is %s",
                 t->name, feature_name(xnack), feature_name(sramecc), dev->name);
        return 0;
    }
    stub_elf_section s;
    for (unsigned i = 1; i < e.shnum; i++)
        if (stub_elf_section_at(&e, i, &s) == 0 && (s.type == SHT_SYMTAB || s.type == SHT_DYNSYM) &&
            s.data)
            stub_elf_symbols(&e, &s, add_kd_symbol, k);
    stub_args(&e, k);
    return STUB_FROM_BINARY;
}

int stub_binary_verdict(cl_device_id dev, const unsigned char *bin, size_t len,
                        stub_kernel_list *kernels, char *why, size_t cap)
{
    kernels->k = NULL;
    kernels->n = 0;
    why[0] = '\0';
    if (stub_switch_matches("CLCSTUB_REFUSE_BINARIES", dev)) {
        snprintf(why, cap, "CLCSTUB_REFUSE_BINARIES: this driver takes no binary");
        return 0;
    }
    if (dev->vendor == STUB_INTEL)
        return intel_verdict(dev, bin, len, kernels, why, cap, 0);
    return amd_verdict(dev, bin, len, kernels, why, cap);
}

cl_int stub_il_check(cl_device_id dev, const unsigned char *il, size_t len,
                     stub_kernel_list *kernels, char *why, size_t cap)
{
    kernels->k = NULL;
    kernels->n = 0;
    unsigned major, minor;
    if (!dev->il_versions[0]) {
        snprintf(why, cap, "this device takes no IL");
        return CL_INVALID_OPERATION;
    }
    if (stub_spirv_parse(il, len, &major, &minor, add_kernel, kernels) != 0) {
        stub_kernels_free(kernels);
        snprintf(why, cap, "not a well-formed SPIR-V module");
        return CL_INVALID_VALUE;
    }
    char version[32];
    snprintf(version, sizeof version, "SPIR-V_%u.%u", major, minor);
    const char *hit = strstr(dev->il_versions, version);
    size_t vl = strlen(version);
    if (!hit || (hit[vl] != '\0' && hit[vl] != ' ')) {
        stub_kernels_free(kernels);
        snprintf(why, cap, "SPIR-V %u.%u is not in this device's IL versions (%s)", major, minor,
                 dev->il_versions);
        return CL_INVALID_VALUE;
    }
    return CL_SUCCESS;
}

/* ---- the stub's own builds ---- */

/* The STUB_SECTION text: each kernel and its parameters. */
static char *args_text(const stub_kernel_list *k, const char *options, size_t *len)
{
    size_t cap = 64 + (options ? strlen(options) : 0);
    for (size_t i = 0; i < k->n; i++) {
        cap += strlen(k->k[i].name) + 16;
        for (size_t a = 0; a < k->k[i].n_args; a++)
            cap += strlen(k->k[i].arg_decl[a]) + 8;
    }
    char *s = malloc(cap);
    if (!s)
        return NULL;
    size_t n = (size_t)snprintf(s, cap, "clcstub 1\noptions %s\n", options ? options : "");
    for (size_t i = 0; i < k->n; i++) {
        n += (size_t)snprintf(s + n, cap - n, "kernel %s\n", k->k[i].name);
        for (size_t a = 0; a < k->k[i].n_args; a++)
            n += (size_t)snprintf(s + n, cap - n, "arg %s\n", k->k[i].arg_decl[a]);
    }
    *len = n;
    return s;
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

unsigned char *stub_binary_make(cl_device_id dev, const stub_kernel_list *k, const char *options,
                                size_t *len)
{
    size_t text_len = 0;
    char *text = args_text(k, options, &text_len);
    size_t n_secs = k->n + 4;
    stub_elf_out_section *secs = calloc(n_secs, sizeof *secs);
    char **names = calloc(k->n + 1, sizeof *names);
    uint8_t *sym = NULL, *code = calloc(1, 64), *out = NULL;
    char *strtab = NULL;
    if (!text || !secs || !names || !code)
        goto done;
    unsigned n = 0;
    if (dev->vendor == STUB_INTEL) {
        /* A zebin: .text.<kernel> for each kernel and the IntelGT notes. */
        for (size_t i = 0; i < k->n; i++) {
            size_t nl = strlen(k->k[i].name) + 7;
            if (!(names[i] = malloc(nl)))
                goto done;
            snprintf(names[i], nl, ".text.%s", k->k[i].name);
            secs[n++] = (stub_elf_out_section){names[i], 1, 6, code, 64, 0, 0, 0};
        }
        const stub_intel_target *t = dev->intel;
        uint8_t notes[3 * 24];
        uint32_t meta = 1u << 21 | t->revision << 16 | t->revision << 8; /* generator 1 */
        const uint32_t vals[3] = {t->product, 0, meta};
        for (int i = 0; i < 3; i++) {
            uint8_t *p = notes + 24 * i;
            put32(p, 8);
            put32(p + 4, 4);
            put32(p + 8, (uint32_t)i + 1);
            memcpy(p + 12, "IntelGT\0", 8);
            put32(p + 20, vals[i]);
        }
        secs[n++] = (stub_elf_out_section){".note.intelgt.compat", SHT_NOTE, 0, notes,
                                           sizeof notes, 0, 0, 0};
        secs[n++] = (stub_elf_out_section){STUB_SECTION, SHT_STUB, 0, text, text_len, 0, 0, 0};
        out = stub_elf_write(ET_REL, EM_INTELGT, 0, 1, 0, secs, n, len);
    } else {
        /* A code object: a <kernel>.kd symbol for each kernel. */
        size_t str_len = 1;
        for (size_t i = 0; i < k->n; i++)
            str_len += strlen(k->k[i].name) + 4;
        strtab = calloc(1, str_len);
        sym = calloc(k->n + 1, 24);
        if (!strtab || !sym)
            goto done;
        size_t at = 1;
        for (size_t i = 0; i < k->n; i++) {
            uint8_t *s = sym + 24 * (i + 1);
            put32(s, (uint32_t)at);
            s[4] = 0x11; /* STB_GLOBAL, STT_OBJECT */
            s[6] = 1;    /* in .rodata */
            at += (size_t)snprintf(strtab + at, str_len - at, "%s.kd", k->k[i].name) + 1;
        }
        uint32_t flags = dev->amd->mach;
        if (dev->amd->has_xnack)
            flags |= (uint32_t)(dev->xnack == STUB_FEAT_ON ? 3 : dev->xnack == STUB_FEAT_OFF ? 2 : 1)
                     << 8;
        if (dev->amd->has_sramecc)
            flags |= (uint32_t)(dev->sramecc == STUB_FEAT_ON ? 3 : dev->sramecc == STUB_FEAT_OFF ? 2
                                                                                                : 1)
                     << 10;
        secs[n++] = (stub_elf_out_section){".rodata", 1, 2, code, 64, 0, 0, 0};
        secs[n++] = (stub_elf_out_section){".dynsym", SHT_DYNSYM, 2, sym, 24 * (k->n + 1), 3, 1, 24};
        secs[n++] = (stub_elf_out_section){".dynstr", 3, 2, strtab, at, 0, 0, 0};
        secs[n++] = (stub_elf_out_section){STUB_SECTION, SHT_STUB, 0, text, text_len, 0, 0, 0};
        out = stub_elf_write(ET_DYN, EM_AMDGPU, ELFOSABI_AMDGPU_HSA, 2, flags, secs, n, len);
    }
done:
    for (size_t i = 0; names && i < k->n; i++)
        free(names[i]);
    free(names);
    free(secs);
    free(code);
    free(sym);
    free(strtab);
    free(text);
    return out;
}
