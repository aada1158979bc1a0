# A small PyOpenCL application for tests/cli/cli_record_python.sh: builds one
# program from source (PyOpenCL adds -I <its install folder>/cl to the
# options), runs its two kernels and prints the result.
#   python3 pyopencl_app.py                 build from source
#   python3 pyopencl_app.py --save FILE     also save the program's binary
#   python3 pyopencl_app.py --load FILE     make the program from that binary
import sys

import numpy as np
import pyopencl as cl

SOURCE = """
__kernel void saxpy(__global const float *x, __global float *y, float a)
{ int i = get_global_id(0); y[i] = a * x[i] + y[i]; }
__kernel void square(__global float *y) { int i = get_global_id(0); y[i] = y[i] * y[i]; }
"""

ctx = cl.Context([cl.get_platforms()[0].get_devices()[0]])
queue = cl.CommandQueue(ctx)
if len(sys.argv) == 3 and sys.argv[1] == "--load":
    with open(sys.argv[2], "rb") as f:
        prg = cl.Program(ctx, ctx.devices, [f.read()]).build()
else:
    prg = cl.Program(ctx, SOURCE).build(options=["-cl-mad-enable"])
    if len(sys.argv) == 3 and sys.argv[1] == "--save":
        with open(sys.argv[2], "wb") as f:
            f.write(prg.binaries[0])
n = 4096
x = np.arange(n, dtype=np.float32)
y = np.ones(n, dtype=np.float32)
mf = cl.mem_flags
dx = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
dy = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=y)
prg.saxpy(queue, (n,), None, dx, dy, np.float32(2.0))
prg.square(queue, (n,), None, dy)
cl.enqueue_copy(queue, y, dy)
print("kernels:", sorted(k.function_name for k in prg.all_kernels()))
print("source bytes:", len(prg.get_info(cl.program_info.SOURCE)))
print("sum:", float(y.astype(np.float64).sum()), "first:", y[:4].tolist())
