/*
 * firscan_app.cpp — a C++17 application of a pack, built for Linux and for
 * Windows alike (see Makefile). It loads two programs from PACK, made by
 * clc-pack from kernels/manifest.txt: a FIR filter (TAPS = 8, 16, compiled
 * in) and a two-kernel prefix scan (GROUP = 64, 128, its work-group); runs
 * every variant on the first OpenCL device and checks each result against
 * the CPU's, printing one line per variant with where its program came from.
 *
 *   firscan_app PACK        exit 0 when every result matches the CPU
 *
 * libclcpack is a C library: the handles are wrapped in std::unique_ptr
 * here, and a failure is an exception caught in main.
 */
#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <clcpack.h>

namespace {

/* Owning handles: each releases its object when it goes out of scope. */
struct pack_close {
    void operator()(clcpack *p) const { clcpack_close(p); }
};
struct context_release {
    void operator()(cl_context c) const { clReleaseContext(c); }
};
struct queue_release {
    void operator()(cl_command_queue q) const { clReleaseCommandQueue(q); }
};
struct program_release {
    void operator()(cl_program p) const { clReleaseProgram(p); }
};
struct kernel_release {
    void operator()(cl_kernel k) const { clReleaseKernel(k); }
};
struct mem_release {
    void operator()(cl_mem m) const { clReleaseMemObject(m); }
};
using pack_ptr = std::unique_ptr<clcpack, pack_close>;
using context_ptr = std::unique_ptr<std::remove_pointer_t<cl_context>, context_release>;
using queue_ptr = std::unique_ptr<std::remove_pointer_t<cl_command_queue>, queue_release>;
using program_ptr = std::unique_ptr<std::remove_pointer_t<cl_program>, program_release>;
using kernel_ptr = std::unique_ptr<std::remove_pointer_t<cl_kernel>, kernel_release>;
using mem_ptr = std::unique_ptr<std::remove_pointer_t<cl_mem>, mem_release>;

/* A struct that grows (it starts with struct_size), zeroed and sized: the
 * C++ spelling of C's `T s = {.struct_size = sizeof s};` (designated
 * initialisers are C++20, and g++ -Wextra warns even there about the
 * fields left out; value-initialisation with {} does not). */
template <typename T> T sized()
{
    T s{};
    s.struct_size = sizeof s;
    return s;
}

void check_cl(cl_int rc, const char *what)
{
    if (rc != CL_SUCCESS)
        throw std::runtime_error(std::string(what) + ": OpenCL error " + std::to_string(rc));
}

struct device {
    cl_device_id id = nullptr;
    context_ptr ctx;
    queue_ptr queue;
};

/* The first GPU of any platform, else the first device. */
device first_device()
{
    cl_platform_id plats[8];
    cl_uint n = 0;
    check_cl(clGetPlatformIDs(8, plats, &n), "clGetPlatformIDs");
    device d;
    for (cl_device_type type : {cl_device_type(CL_DEVICE_TYPE_GPU), cl_device_type(CL_DEVICE_TYPE_ALL)})
        for (cl_uint i = 0; i < n && i < 8 && !d.id; i++)
            if (clGetDeviceIDs(plats[i], type, 1, &d.id, nullptr) != CL_SUCCESS)
                d.id = nullptr;
    if (!d.id)
        throw std::runtime_error("no OpenCL device");
    cl_int rc;
    d.ctx.reset(clCreateContext(nullptr, 1, &d.id, nullptr, nullptr, &rc));
    check_cl(rc, "clCreateContext");
    d.queue.reset(clCreateCommandQueue(d.ctx.get(), d.id, 0, &rc));
    check_cl(rc, "clCreateCommandQueue");
    return d;
}

pack_ptr open_pack(const char *path)
{
    clcpack *p = nullptr;
    clcpack_error err;
    if (clcpack_open_file(path, &p, &err) != CLCPACK_OK)
        throw std::runtime_error(err.message);
    return pack_ptr(p);
}

/* The program of the variant `kernel` with define NAME=VALUE and
 * work-group wg (0: none), and where it came from (native, source, ...). */
struct loaded {
    program_ptr program;
    std::string from;
};

loaded load(const clcpack *pack, const device &d, const char *kernel, const char *name,
            const std::string &value, uint32_t wg)
{
    clcpack_define def = {name, value.c_str()};
    clcpack_key key = {kernel, &def, 1, {wg, wg ? 1u : 0u, wg ? 1u : 0u}};
    auto report = sized<clcpack_load_report>();
    cl_program prog = nullptr;
    clcpack_error err;
    if (clcpack_create_program(pack, &key, d.ctx.get(), d.id, nullptr, &prog, &report, &err) != CLCPACK_OK)
        throw std::runtime_error(std::string(kernel) + " " + name + "=" + value + ": " + err.message);
    return {program_ptr(prog), clcpack_path_name(report.path)};
}

kernel_ptr make_kernel(const program_ptr &prog, const char *name)
{
    cl_int rc;
    kernel_ptr k(clCreateKernel(prog.get(), name, &rc));
    check_cl(rc, name);
    return k;
}

template <typename T> mem_ptr buffer(const device &d, cl_mem_flags flags, std::vector<T> &v)
{
    cl_int rc;
    mem_ptr m(clCreateBuffer(d.ctx.get(), flags | CL_MEM_COPY_HOST_PTR, v.size() * sizeof(T), v.data(), &rc));
    check_cl(rc, "clCreateBuffer");
    return m;
}

template <typename T> void set_args(cl_kernel k, cl_uint i, const T &a)
{
    check_cl(clSetKernelArg(k, i, sizeof a, &a), "clSetKernelArg");
}
template <typename T, typename... More> void set_args(cl_kernel k, cl_uint i, const T &a, const More &...more)
{
    set_args(k, i, a);
    set_args(k, i + 1, more...);
}

template <typename T> void read(const device &d, const mem_ptr &m, std::vector<T> &v)
{
    check_cl(clEnqueueReadBuffer(d.queue.get(), m.get(), CL_TRUE, 0, v.size() * sizeof(T), v.data(), 0, nullptr,
                                 nullptr),
             "clEnqueueReadBuffer");
}

/* y = x filtered by taps taps, on the device and on the CPU. */
bool fir(const clcpack *pack, const device &d, int taps)
{
    const int n = 4096;
    auto [prog, from] = load(pack, d, "fir", "TAPS", std::to_string(taps), 0);
    kernel_ptr k = make_kernel(prog, "fir");

    std::vector<float> x(n + taps - 1), h(taps), y(n);
    for (size_t i = 0; i < x.size(); i++)
        x[i] = std::sin(0.01f * static_cast<float>(i)) + static_cast<float>(i % 7) / 7.0f;
    for (int j = 0; j < taps; j++)
        h[j] = 1.0f / static_cast<float>(taps) + 0.01f * static_cast<float>(j);
    mem_ptr xm = buffer(d, CL_MEM_READ_ONLY, x), hm = buffer(d, CL_MEM_READ_ONLY, h);
    mem_ptr ym = buffer(d, CL_MEM_WRITE_ONLY, y);
    set_args(k.get(), 0, xm.get(), hm.get(), ym.get(), cl_int(n));
    size_t global = n;
    check_cl(clEnqueueNDRangeKernel(d.queue.get(), k.get(), 1, nullptr, &global, nullptr, 0, nullptr, nullptr),
             "fir");
    read(d, ym, y);

    int wrong = 0;
    for (int i = 0; i < n; i++) {
        float want = 0;
        for (int j = 0; j < taps; j++)
            want += h[j] * x[i + j];
        wrong += std::fabs(y[i] - want) > 1e-4f * (std::fabs(want) + 1.0f);
    }
    std::printf("fir TAPS=%d: program from %s, %d outputs, %s\n", taps, from.c_str(), n,
                wrong ? "WRONG" : "as the CPU's");
    return wrong == 0;
}

/* The inclusive prefix sum of n ints, by work-groups of group. */
bool scan(const clcpack *pack, const device &d, int group)
{
    const int n = 10000;
    const size_t groups = (n + group - 1) / group, global = groups * group, local = group;
    auto [prog, from] = load(pack, d, "scan_groups", "GROUP", std::to_string(group), static_cast<uint32_t>(group));
    kernel_ptr groups_k = make_kernel(prog, "scan_groups"), add_k = make_kernel(prog, "scan_add");

    std::vector<cl_int> in(n), out(n), sums(groups);
    for (int i = 0; i < n; i++)
        in[i] = (i * 37) % 19 - 9;
    mem_ptr inm = buffer(d, CL_MEM_READ_ONLY, in), outm = buffer(d, CL_MEM_READ_WRITE, out);
    mem_ptr sumsm = buffer(d, CL_MEM_READ_WRITE, sums);
    set_args(groups_k.get(), 0, inm.get(), outm.get(), sumsm.get(), cl_int(n));
    set_args(add_k.get(), 0, outm.get(), sumsm.get(), cl_int(n));
    for (cl_kernel k : {groups_k.get(), add_k.get()})
        check_cl(clEnqueueNDRangeKernel(d.queue.get(), k, 1, nullptr, &global, &local, 0, nullptr, nullptr),
                 "scan");
    read(d, outm, out);

    int wrong = 0;
    cl_int want = 0;
    for (int i = 0; i < n; i++) {
        want += in[i];
        wrong += out[i] != want;
    }
    std::printf("scan GROUP=%d: program from %s, %d sums, %s\n", group, from.c_str(), n,
                wrong ? "WRONG" : "as the CPU's");
    return wrong == 0;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: firscan_app PACK\n");
        return 2;
    }
    try {
        device d = first_device();
        pack_ptr pack = open_pack(argv[1]);
        bool ok = true;
        for (int taps : {8, 16})
            ok &= fir(pack.get(), d, taps);
        for (int group : {64, 128})
            ok &= scan(pack.get(), d, group);
        return ok ? 0 : 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "firscan_app: %s\n", e.what());
        return 1;
    }
}
