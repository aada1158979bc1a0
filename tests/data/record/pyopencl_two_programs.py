# Two command lines of one PyOpenCL application, for
# tests/cli/cli_record_merge_apps.sh: "ab" builds and runs program A, then
# program B; "b" builds and runs B alone. PoCL compiles every program of a
# process in one LLVM context, so B's program.bc from "ab" also lists the
# metadata kinds A's build registered: the same program, other bytes.
#   python3 pyopencl_two_programs.py ab|b
import sys

import numpy as np
import pyopencl as cl

SOURCE_A = """
__kernel void fill(__global float *y, float v) { y[get_global_id(0)] = v; }
"""
SOURCE_B = """
__kernel void saxpy(__global const float *x, __global float *y, float a)
{ int i = get_global_id(0); y[i] = a * x[i] + y[i]; }
"""

if len(sys.argv) != 2 or sys.argv[1] not in ("ab", "b"):
    sys.exit("usage: pyopencl_two_programs.py ab|b")
ctx = cl.Context([cl.get_platforms()[0].get_devices()[0]])
queue = cl.CommandQueue(ctx)
n = 1024
mf = cl.mem_flags
x = np.arange(n, dtype=np.float32)
y = np.ones(n, dtype=np.float32)
dx = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
dy = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=y)
if sys.argv[1] == "ab":
    a = cl.Program(ctx, SOURCE_A).build()
    a.fill(queue, (n,), None, dy, np.float32(1.0))
b = cl.Program(ctx, SOURCE_B).build()
b.saxpy(queue, (n,), None, dx, dy, np.float32(2.0))
cl.enqueue_copy(queue, y, dy)
print("sum:", float(y.astype(np.float64).sum()), "first:", y[:4].tolist())
