# A PyOpenCL application for tests/cli/cli_record_python.sh, meant to run
# under PyOpenCL's defaults (its binary cache on): two programs, three
# kernels, each program built once. On a cache miss PyOpenCL appends
# "__constant int pyopencl_defeat_cache_<uuid> = 0;" to the source before it
# builds, so every process builds another text (docs/RECORD.md, "Text
# PyOpenCL adds").
#   python3 pyopencl_cached.py
import numpy as np
import pyopencl as cl

SCALE = """
__kernel void scale(__global float *y, float a) { int i = get_global_id(0); y[i] = a * y[i]; }
__kernel void shift(__global float *y, float b) { int i = get_global_id(0); y[i] = y[i] + b; }
"""
REDUCE = """
__kernel void pairs(__global const float *y, __global float *out)
{ int i = get_global_id(0); out[i] = y[2 * i] + y[2 * i + 1]; }
"""

ctx = cl.Context([cl.get_platforms()[0].get_devices()[0]])
queue = cl.CommandQueue(ctx)
first = cl.Program(ctx, SCALE).build(options=["-cl-fast-relaxed-math"])
second = cl.Program(ctx, REDUCE).build()
n = 1024
y = np.arange(n, dtype=np.float32)
out = np.zeros(n // 2, dtype=np.float32)
mf = cl.mem_flags
dy = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=y)
dout = cl.Buffer(ctx, mf.WRITE_ONLY, out.nbytes)
first.scale(queue, (n,), None, dy, np.float32(3.0))
first.shift(queue, (n,), None, dy, np.float32(-1.0))
second.pairs(queue, (n // 2,), None, dy, dout)
cl.enqueue_copy(queue, out, dout)
print("kernels:", sorted(k.function_name for p in (first, second) for k in p.all_kernels()))
print("sum:", float(out.astype(np.float64).sum()), "first:", out[:4].tolist())
