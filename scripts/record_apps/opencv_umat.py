#!/usr/bin/env python3
"""OpenCV's OpenCL path through Python (cv2.UMat), as a user of
python3-opencv would run it: a few image filters on a synthetic image,
each result's MD5 printed (scripts/bench_record_apps.sh, docs/RECORD.md).
OpenCV builds an OpenCL program per filter variant at first use."""
import hashlib

import cv2
import numpy as np

cv2.ocl.setUseOpenCL(True)
if not cv2.ocl.useOpenCL():
    raise SystemExit("OpenCV: no OpenCL device")
rng = np.random.default_rng(7)
img = rng.integers(0, 256, size=(480, 640, 3), dtype=np.uint8)
u = cv2.UMat(img)
steps = {
    "gray": lambda x: cv2.cvtColor(x, cv2.COLOR_BGR2GRAY),
    "gauss": lambda x: cv2.GaussianBlur(x, (7, 7), 1.5),
    "box": lambda x: cv2.blur(x, (5, 5)),
    "resize": lambda x: cv2.resize(x, (320, 240), interpolation=cv2.INTER_LINEAR),
    "sobel": lambda x: cv2.Sobel(x, cv2.CV_16S, 1, 0),
    "dilate": lambda x: cv2.dilate(x, np.ones((3, 3), np.uint8)),
}
for name, f in steps.items():
    out = f(u).get()
    print(name, out.shape, hashlib.md5(out.tobytes()).hexdigest())
